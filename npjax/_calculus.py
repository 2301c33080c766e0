"""Differences, gradients, integration and interpolation: gradient, trapezoid, interp, unwrap."""

__all__: list[str] = []
