"""npjax.random: numpy.random on JAX (to be filled by the random work)."""

__all__: list[str] = []
