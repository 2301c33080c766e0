"""Function application: apply_along_axis, apply_over_axes, vectorize, frompyfunc."""

__all__: list[str] = []
