"""Floating-point error state: errstate, seterr, geterr, seterrcall, geterrcall."""

__all__: list[str] = []
