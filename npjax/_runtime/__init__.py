"""Layer 2 of 8, runtime: execution context, policy, error state, checks, statistics, caches.

Its modules import only from this layer and the ones below
(_pure);
docs/architecture.md draws the layers and tests/test_layers.py checks them."""
