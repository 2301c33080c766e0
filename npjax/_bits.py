"""Bit packing: packbits, unpackbits."""

__all__: list[str] = []
