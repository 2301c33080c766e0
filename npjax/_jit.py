"""npjax.jit: compile NumPy-style functions with mutation (to be filled by the jit work)."""

__all__: list[str] = []
