"""npjax.fft: numpy.fft on JAX (to be filled by the fft work)."""

__all__: list[str] = []
