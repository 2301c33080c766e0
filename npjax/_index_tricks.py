"""Index helpers: r_, c_, s_, ix_, ndindex, ndenumerate, tril_indices, unravel_index, ..."""

__all__: list[str] = []
