"""Reductions (sum, mean, std, median, ...): one table, one factory."""

from __future__ import annotations

__all__: list[str] = []
