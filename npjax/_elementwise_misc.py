"""Elementwise helpers that are not ufuncs: isclose, angle, real, fix, round, nan_to_num."""

__all__: list[str] = []
