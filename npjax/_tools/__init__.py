"""Layer 7 of 7, tools: the runner, its report, coverage.

Its modules import only from this layer and the ones below
(_pure, _runtime, _core, _calls, _library, _compile);
docs/architecture.md draws the layers and tests/test_layers.py checks them."""
