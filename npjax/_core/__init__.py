"""Layer 3 of 7, core: the array, its storage and views, placement, indexing, lazy kernels.

Its modules import only from this layer and the ones below
(_pure, _runtime);
docs/architecture.md draws the layers and tests/test_layers.py checks them."""
