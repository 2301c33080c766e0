"""Histograms, bincount-like counting, cov and corrcoef."""

__all__: list[str] = []
