"""The op table's rows: how to call each public npjax function (tests/test_op_table.py).

A row is one call written as a Python expression over ``xp`` (``numpy`` or ``npjax``) and
named inputs. Each input name stands for one NumPy array made from a seed (``INPUTS``); the
names an expression uses become the arguments of the call (in ``npjax.jit`` mode, the
arguments of the compiled function), everything else in the expression is a constant.

Ufunc rows are generated from NumPy's own ufunc (``nin``, ``types``); the other rows are
written by hand in ``HAND`` (one line per call, keyed by the registry's name). Records the
table leaves out are in ``EXCLUDED`` with the reason. Inputs are longer than 128 elements
(lazy mode's windows) wherever the function takes an array of any length.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass, field

import numpy as np

# "thorough" (or HYPOTHESIS_PROFILE=full/thorough): every ufunc loop NumPy has, not only its
# float64 and int64 ones.
THOROUGH = os.environ.get("HYPOTHESIS_PROFILE", "ci") in ("full", "thorough")

N = 200  # the length of 1-d inputs: more than lazy mode's 128-element windows


def _matrix(rng, n=4):
    return rng.standard_normal((n, n)) + n * np.eye(n)


def _spd(rng, n=4):
    m = rng.standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


# name -> maker(rng): the inputs an expression may use.
INPUTS = {
    "a": lambda r: r.standard_normal(N),
    "b": lambda r: r.standard_normal(N),
    "p": lambda r: r.uniform(0.1, 3.0, N),                       # positive
    "u": lambda r: r.uniform(-0.95, 0.95, N),                    # inside (-1, 1)
    "f": lambda r: r.standard_normal(N).astype(np.float32),
    "z": lambda r: r.standard_normal(N) + 1j * r.standard_normal(N),
    "i": lambda r: r.integers(-50, 50, N),
    "j": lambda r: r.integers(-50, 50, N),
    "k": lambda r: r.integers(0, 8, N),                          # small indices
    "q": lambda r: r.random(N) < 0.5,                            # booleans
    "srt": lambda r: np.sort(r.standard_normal(N)),
    "t": lambda r: r.standard_normal((6, 40)),                   # 2-d, 240 elements
    "s": lambda r: r.standard_normal((6, 40)),
    "ti": lambda r: r.integers(0, 6, (6, 40)),
    "g": lambda r: r.standard_normal((4, 6, 10)),                # 3-d, 240 elements
    "m": _matrix,
    "n": _matrix,
    "h": _spd,
    "mb": lambda r: np.stack([_matrix(r) for _ in range(3)]),    # a stack of 3 matrices
    "v": lambda r: r.standard_normal(4),
    "w": lambda r: r.standard_normal(4),
    "r3": lambda r: r.standard_normal((N, 3)),
    "r3b": lambda r: r.standard_normal((N, 3)),
    "c": lambda r: r.standard_normal(6),                         # polynomial coefficients
    "e8": lambda r: np.full(N, 127, np.int8),                    # integer extremes
    "e64": lambda r: np.full(N, 2**62, np.int64),
    "u8": lambda r: r.integers(0, 256, N).astype(np.uint8),
}


def make_inputs(row_id: str, names) -> list[np.ndarray]:
    """The inputs of a row: the same numbers for every run of the row (seeded by its id)."""
    rng = np.random.default_rng(zlib.crc32(row_id.encode()))
    return [np.asarray(INPUTS[n](rng)) for n in names]


@dataclass(frozen=True, eq=False)
class Row:
    """One call: ``record`` is the registry key ("numpy.add", "numpy.linalg.inv")."""

    record: str
    id: str
    expr: str
    xfail: dict = field(default_factory=dict)   # mode (or "all") -> measured cause
    values: bool = True     # False: compare shape, dtype and exceptions only (random streams)
    tol: dict | None = None  # dtype -> rtol/atol, joined with tests/tolerances.py by max

    @property
    def names(self) -> tuple[str, ...]:
        code = compile(self.expr, self.id, "eval")
        return tuple(n for n in INPUTS if n in code.co_names)


# --------------------------------------------------------------------------- ufuncs

# Float inputs by ufunc: the default is ``a`` (standard normal, so log/sqrt of negatives
# give NaN with NumPy's "invalid value" warning, also compared).
_FLOAT_IN = {
    "arccosh": "p", "acosh": "p", "arctanh": "u", "atanh": "u", "arcsin": "u", "asin": "u",
    "arccos": "u", "acos": "u", "power": "p", "pow": "p", "float_power": "p",
}
_INT_SECOND = {  # int loops whose second operand must be small and non-negative
    "left_shift": "k", "right_shift": "k", "bitwise_left_shift": "k",
    "bitwise_right_shift": "k", "power": "k", "pow": "k", "ldexp": "k",
}
_CODES = {np.dtype(c).char: np.dtype(c) for c in "?bBhHiIlLqQefdFD"}
_PLAIN = {"a": "f8", "b": "f8", "p": "f8", "u": "f8", "i": "i8", "j": "i8", "k": "i8",
          "q": "b1"}


def _ufunc_loops(uf) -> list[str]:
    """The loops a row is made for (input type codes, first loop per first-operand dtype):
    float64 and int64 ones (where NumPy has them) by default, every dtype of ``_CODES``
    under the thorough profile."""
    loops: dict[str, str] = {}
    for t in uf.types:
        ins = t.split("->")[0]
        if all(ch in _CODES for ch in ins):
            loops.setdefault(ins[0], ins)
    if THOROUGH:
        return list(loops.values())
    pick = [loops[c] for c in ("d", "l") if c in loops]
    return pick or list(loops.values())[:1]


def _operand(slot: int, ch: str, name: str) -> str:
    kind = _CODES[ch].kind
    if kind == "b":
        base = "q"
    elif kind in "iu":
        base = "k" if (slot == 1 and name in _INT_SECOND) or kind == "u" else "ij"[slot]
    else:
        base = _FLOAT_IN.get(name, "a") if slot == 0 else "b"
    if _PLAIN.get(base) == _CODES[ch].str[1:]:
        return base
    return f"{base}.astype('{_CODES[ch].str}')"


def ufunc_rows(name: str) -> list[Row]:
    """Rows of one ufunc, one per loop (``_ufunc_loops``)."""
    uf = getattr(np, name)
    return [Row(f"numpy.{name}", f"{name}-{_CODES[ins[0]].name}",
                f"xp.{name}({', '.join(_operand(s, ch, name) for s, ch in enumerate(ins))})")
            for ins in _ufunc_loops(uf)]


# --------------------------------------------------------------------------- the table

def _native():
    from npjax._calls import _registry
    return [r for r in _registry.records() if r.status == "native"]


def _generated() -> list[Row]:
    rows = []
    for r in _native():
        uf = getattr(np, r.name, None) if r.module == "numpy" else None
        if r.kind == "ufunc" and isinstance(uf, np.ufunc) and uf.signature is None:
            rows += ufunc_rows(r.name)
    return rows


HAND: list[Row] = []
EXCLUDED: dict[str, str] = {}
ROWS: list[Row] = _generated() + HAND
