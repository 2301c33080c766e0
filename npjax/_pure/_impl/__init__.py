"""Pure-JAX implementations: jax.Array in, jax.Array out; no npjax types, no policy."""
