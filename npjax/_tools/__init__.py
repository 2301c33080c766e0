"""Layer 8 of 8, tools: the runner, its report, coverage.

Its modules import only from this layer and the ones below
(_pure, _runtime, _execution, _core, _calls, _library, _compile);
docs/architecture.md draws the layers and tests/test_layers.py checks them."""
