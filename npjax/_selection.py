"""Sorting, searching and selection (sort, argsort, where, clip, take, choose, ...)."""

from __future__ import annotations

__all__: list[str] = []
