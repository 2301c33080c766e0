"""Layer 7 of 8, compile front ends: npjax.jit, its mask reads, loop rolling and windows.

Its modules import only from this layer and the ones below
(_pure, _runtime, _execution, _core, _calls, _library);
docs/architecture.md draws the layers and tests/test_layers.py checks them."""
