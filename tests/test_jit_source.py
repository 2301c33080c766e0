"""``npjax.jit`` rewrites a function's loops from its source (``_loop_source``), read back from
its file when it is first called; the rewrite must run the code that Python imported. A file
edited after its import (a long test run while its files change, a notebook's module changed
on disk) is read back as the new text: its function is rewritten only where that text
compiles to the very code that runs, constants included, and otherwise runs as imported."""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest

import npjax
from tests._parity import assert_same

_SOURCE = '''
def kernel(xp, x):
    out = xp.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i] * 2.0 + 1
    return out, 5, out * 0.0
'''

_EDITS = {
    "a literal's value": lambda s: s.replace("2.0", "3.0"),
    "a literal's sign of zero": lambda s: s.replace("* 0.0", "* -0.0"),  # (0.0 == -0.0)
    "a literal's type": lambda s: s.replace("out, 5", "out, 5.0"),  # (5 == 5.0)
    "lines above it": lambda s: "import math\n\n" + s,
}


def _imported_then_edited(tmp_path, name, edit):
    path = tmp_path / f"{name}.py"
    path.write_text(_SOURCE)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if edit is not None:
        path.write_text(edit(_SOURCE))
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    return module.kernel


@pytest.mark.parametrize("edit", list(_EDITS))
def test_a_file_edited_after_its_import_runs_as_imported(tmp_path, edit):
    kernel = _imported_then_edited(tmp_path, f"edited_{list(_EDITS).index(edit)}", _EDITS[edit])
    x = np.array([1.0, 2.0, 3.0, 4.0])
    got = npjax.jit(kernel, static_argnums=(0,))(npjax, npjax.asarray(x))
    assert_same(got, kernel(np, x), check_sign_of_zero=True)


def test_equal_code_of_another_file_is_rewritten_on_its_own(tmp_path):
    """Code objects of two files compare equal when name, lines and code are (``==`` leaves
    out the file): the rewrite refused for the edited file's function is not the other's."""
    edited = _imported_then_edited(tmp_path, "first_copy", _EDITS["a literal's value"])
    kept = _imported_then_edited(tmp_path, "second_copy", None)
    assert edited.__code__ == kept.__code__
    x = np.array([1.0, 2.0, 3.0, 4.0])
    for kernel, rolled in ((edited, []), (kept, [True])):
        f = npjax.jit(kernel, static_argnums=(0,))
        assert_same(f(npjax, npjax.asarray(x)), kernel(np, x))
        assert [o.rolled for o in f.loops if o.rolled] == rolled, f.loops
