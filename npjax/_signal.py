"""Signal helpers: convolve, correlate, window functions, sinc, i0."""

__all__: list[str] = []
