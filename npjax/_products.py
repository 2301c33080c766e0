"""Products of arrays: dot, vdot, inner, outer, tensordot, kron, einsum, cross."""

__all__: list[str] = []
