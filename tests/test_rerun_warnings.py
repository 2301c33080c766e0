"""``_runtime/_rerun_warnings``: NumPy's host rerun of a call whose device body already gave
some of its warnings shows the others only; filters, other threads and calls outside a rerun
are untouched."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

from npjax._runtime import _rerun_warnings


def test_a_rerun_shows_only_what_the_body_did_not():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with _rerun_warnings.body() as given:
            warnings.warn("first", RuntimeWarning, stacklevel=1)
        with _rerun_warnings.rerun(given):
            warnings.warn("first", RuntimeWarning, stacklevel=1)  # given by the body: not again
            warnings.warn("second", RuntimeWarning, stacklevel=1)
            warnings.warn("first", RuntimeWarning, stacklevel=1)  # a second one: NumPy gave two
        warnings.warn("first", RuntimeWarning, stacklevel=1)  # after the rerun: as always
    assert [str(w.message) for w in caught] == ["first", "second", "first", "first"]


def test_filters_still_apply_and_other_threads_show_theirs():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with _rerun_warnings.body() as given:
            np.log(np.zeros(1))
        with _rerun_warnings.rerun(given):
            thread = threading.Thread(target=lambda: np.log(np.zeros(1)))
            thread.start()
            thread.join()
            np.log(np.zeros(1))
    assert [str(w.message) for w in caught] == ["divide by zero encountered in log"] * 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with _rerun_warnings.rerun(given), pytest.raises(RuntimeWarning):
            np.log(np.zeros(1))


def test_a_body_inside_a_body_counts_for_both():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with _rerun_warnings.body() as outer:
            with _rerun_warnings.body() as inner:
                warnings.warn("inner", stacklevel=1)
        with _rerun_warnings.rerun(outer):
            warnings.warn("inner", stacklevel=1)
    assert inner == outer == [("inner", UserWarning)]
    assert [str(w.message) for w in caught] == ["inner"]
