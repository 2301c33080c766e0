"""Layer 6 of 8, the library families: NumPy's functions by family.

Its modules import only from this layer and the ones below
(_pure, _runtime, _execution, _core, _calls);
docs/architecture.md draws the layers and tests/test_layers.py checks them."""
