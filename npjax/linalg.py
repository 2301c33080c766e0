"""npjax.linalg: numpy.linalg on JAX (to be filled by the linalg work)."""

__all__: list[str] = []
