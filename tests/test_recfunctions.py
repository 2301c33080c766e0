"""``npjax.lib.recfunctions``: NumPy's functions for structured arrays (host data in npjax),
run on the host with npjax arrays accepted; NumPy's arrays among the results are npjax
arrays, its other objects (masked and record arrays) its own."""

from __future__ import annotations

import numpy as np
import numpy.lib.recfunctions as np_rfn
import pytest

import npjax
from npjax._tools import _runner
from npjax.lib import recfunctions as rfn

PAIR = np.dtype([("a", "f8"), ("b", "f8")])
MIXED = np.dtype([("a", "i4"), ("b", "f8")])


def _records(xp, dtype=MIXED):
    return xp.array([(1, 2.0), (3, 4.0), (5, 6.0)], dtype=dtype)


def _same(ours, theirs):
    assert type(ours) is (npjax.ndarray if type(theirs) is np.ndarray else type(theirs))
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    assert ours.tolist() == theirs.tolist()


def test_module_mirrors_numpys():
    assert rfn.__all__ == np_rfn.__all__
    assert npjax.lib.recfunctions is rfn
    assert _runner._npjax_module("numpy.lib.recfunctions") is rfn  # scripts run by the runner
    assert all(getattr(rfn, n) is not getattr(np_rfn, n) for n in rfn.__all__)


CASES = {
    "structured_to_unstructured": lambda m, xp: m.structured_to_unstructured(_records(xp)),
    "unstructured_to_structured": lambda m, xp: m.unstructured_to_structured(
        xp.asarray([[1.0, 2.0], [3.0, 4.0]]), PAIR),
    "drop_fields": lambda m, xp: m.drop_fields(_records(xp), "a"),
    "rename_fields": lambda m, xp: m.rename_fields(_records(xp), {"a": "z"}),
    "append_fields": lambda m, xp: m.append_fields(_records(xp), "c", xp.asarray([7, 8, 9.0]),
                                                   usemask=False),
    "merge_arrays": lambda m, xp: m.merge_arrays((xp.asarray([1, 2]), xp.asarray([3.0, 4.0])),
                                                 flatten=True, usemask=False),
    "stack_arrays": lambda m, xp: m.stack_arrays((_records(xp), _records(xp)), usemask=False),
    "join_by": lambda m, xp: m.join_by("a", _records(xp), _records(xp), usemask=False),
    "repack_fields": lambda m, xp: m.repack_fields(_records(xp)),
    "apply_along_fields": lambda m, xp: m.apply_along_fields(np.mean, _records(xp, PAIR)),
    "require_fields": lambda m, xp: m.require_fields(_records(xp), [("b", "f4")]),
}


@pytest.mark.parametrize("placement", ["auto", "device"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_results_as_numpys(case, placement):
    with npjax.policy(placement=placement):
        ours = CASES[case](rfn, npjax)
    _same(ours, CASES[case](np_rfn, np))


def test_views_write_through_as_in_numpy():
    """A structured array is a NumPy array in npjax, so NumPy's views of it stay views."""
    for xp, m in ((np, np_rfn), (npjax, rfn)):
        s = _records(xp, PAIR)
        m.structured_to_unstructured(s)[0, 0] = -1.0
        assert s[0]["a"] == -1.0


def test_errors_are_numpys():
    with pytest.raises(TypeError):
        np_rfn.drop_fields(np.asarray([1.0, 2.0]), "a")
    with pytest.raises(TypeError):
        rfn.drop_fields(npjax.asarray([1.0, 2.0]), "a")
