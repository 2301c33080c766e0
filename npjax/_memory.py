"""Memory questions answered as NumPy would: shares_memory, may_share_memory."""

from __future__ import annotations

__all__: list[str] = []
