"""Layer 3 of 8, execution: the executor's kernels (Kernel: run now, recorded in lazy mode,
inlined under npjax.jit) and lazy mode's graphs, programs and checks.

Its modules import only from this layer and the ones below
(_pure, _runtime);
docs/architecture.md draws the layers and tests/test_layers.py checks them."""
