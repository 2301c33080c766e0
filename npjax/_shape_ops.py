"""Shape and joining functions (reshape, concatenate, stack, split, flip, pad, ...)."""

from __future__ import annotations

__all__: list[str] = []
