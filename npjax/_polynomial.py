"""The legacy polynomial functions: poly, polyval, polyfit, roots, poly1d, ..."""

__all__: list[str] = []
