"""Layer 5 of 8, dispatch: one call path (npfunc, ufuncs, operators), the registry,
fallback, interop.

Its modules import only from this layer and the ones below
(_pure, _runtime, _execution, _core);
docs/architecture.md draws the layers and tests/test_layers.py checks them."""
