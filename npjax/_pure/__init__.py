"""Layer 1 of 8, pure parts: errors, dtypes, axis arguments, pure-JAX kernels.

Its modules import only from this layer and the ones below
(nothing of npjax);
docs/architecture.md draws the layers and tests/test_layers.py checks them."""
