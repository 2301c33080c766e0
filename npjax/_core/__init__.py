"""Layer 4 of 8, core: the array, its storage and views, placement, indexing, the
hooks of each mode around the executor (_executor).

Its modules import only from this layer and the ones below
(_pure, _runtime, _execution);
docs/architecture.md draws the layers and tests/test_layers.py checks them."""
