"""ufunc.reduce/accumulate/outer/reduceat/at, attached to the ufunc class."""

from __future__ import annotations

__all__: list[str] = []
