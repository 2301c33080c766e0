"""The op table: one row per public npjax function, run in every mode against NumPy.

Each row of ``tests/_op_rows.py`` (generated for ufuncs from NumPy's loops, written by hand for
the rest) runs four times: on the host (the CPU default), on the device eagerly
(``placement="device"``), in lazy mode on the device, and inside a function compiled by
``npjax.jit``. Every run is compared with NumPy's run of the same expression on the same
seeded inputs: the exception class, or the result's kind, shape, dtype and values
(``tests/tolerances.py``), the warnings raised (category and message), and the final state
of every input (functions that write into their arguments). As JAX's op-record tables and
CuPy's ``numpy_cupy_allclose`` do.

``test_every_native_record_has_a_row`` fails for a native registry record with neither a
row nor a reasoned entry in ``EXCLUDED``, so a new function cannot go untested. Rows that
differ from NumPy are ``xfail(strict=True)`` with the measured cause: a fix turns them
into failures until the mark goes.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import npjax
from npjax._calls import _registry
from tests import tolerances
from tests._op_rows import (DEVICE_THOROUGH, EXCLUDED, NO_VALUES, ROWS, THOROUGH, TRACE, XFAIL,
                            make_inputs)
from tests import _parity
from tests._parity import assert_same, family

MODES = {
    "host": {},
    "device": dict(placement="device", mode="eager"),
    "lazy": dict(placement="device", mode="lazy"),
    "jit": {},
}
NATIVE = {f"{r.module}.{r.name}": r for r in _registry.records() if r.status == "native"}


def _params():
    """(row, mode) for every run that is not part of a batch (``_batches``)."""
    batched = {row.id for batch in _batches() for row in batch}
    params = []
    for row in ROWS:
        for mode in MODES:
            if mode == "device" and row.id in DEVICE_THOROUGH and not THOROUGH:
                continue
            if mode in BATCHED and row.id in batched:
                continue
            reason = row.xfail.get(_xfail_mode(row, mode)) or row.xfail.get("all")
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(row, mode, id=f"{mode}-{row.id}", marks=marks))
    return params


def _xfail_mode(row, mode):
    """Whose xfails a run takes: its mode's; on the device (``--npjax-placement=device``)
    the host run's and the eager fallback of a row that cannot trace are device runs."""
    if _parity.PLACEMENT != "device" or mode not in ("host", "jit"):
        return mode
    record = NATIVE.get(row.record)
    eager = row.trace or (record is not None and record.trace)
    return "device" if mode == "host" or (eager and "jit" not in row.xfail) else mode


def _batch_params():
    return [pytest.param(k, mode, id=f"{mode}-batch{k:02d}-{batch[0].id}-{batch[-1].id}")
            for mode in BATCHED for k, batch in enumerate(_batches())]


@functools.cache
def _function(row):
    """The row's expression as ``f(xp, *inputs)`` (compiled once per row)."""
    return eval(f"lambda xp, {', '.join(row.names)}: {row.expr}")


@functools.cache
def _jitted(row):
    """``npjax.jit`` of the row, one per row for the whole run. Functions the registry says
    cannot trace (their ``trace`` reason), and rows that say so, run with
    ``fallback="eager"``."""
    fn = _function(row)
    record = NATIVE.get(row.record)
    fallback = "eager" if row.trace or (record is not None and record.trace) else "raise"
    return npjax.jit(lambda *inputs: fn(npjax, *inputs), fallback=fallback)


def _read(result):
    """Read every npjax array of a result (lazy values and deferred warnings arrive here)."""
    if isinstance(result, npjax.ndarray):
        np.asarray(result)
    elif isinstance(result, tuple | list):
        for item in result:
            _read(item)


def _outcome(call):
    """(result, exception, warnings) of ``call()``, its warnings recorded, not raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call()
            _read(result)
            exc = None
        except Exception as error:  # the exception class is compared
            result, exc = None, error
    said = sorted({(w.category.__name__, str(w.message)) for w in caught
                   if not issubclass(w.category, DeprecationWarning)})
    return result, exc, said


@functools.cache
def _numpy_outcome(row):
    """NumPy's run of ``row``: (result, exception, warnings, inputs afterwards), once."""
    theirs = [x.copy() for x in make_inputs(row.id, row.names)]
    return (*_outcome(lambda: _function(row)(np, *theirs)), theirs)


def _ours(row):
    return [npjax.asarray(x) for x in make_inputs(row.id, row.names)]


def run_row(row, mode):
    """Run ``row`` alone in ``mode`` and under NumPy; assert the outcomes agree."""
    with npjax.policy(**MODES[mode]):
        ours = _ours(row)
        call = _jitted(row) if mode == "jit" else functools.partial(_function(row), npjax)
        _compare(row, mode, *_outcome(lambda: call(*ours)), ours)


def run_batch(batch, mode):
    """Run the rows of ``batch`` as one lazy flush or one ``npjax.jit`` function, and compare
    each with NumPy's; a batch that raises or warns runs its rows one by one instead."""
    run, cuts = _batch_function(batch)
    with npjax.policy(**MODES[mode]):
        inputs = [x for row in batch for x in _ours(row)]
        call = npjax.jit(run) if mode == "jit" else run
        results, exc, said = _outcome(lambda: call(*inputs))
        alone = exc is not None or bool(said)
        failed = [f for k, row in enumerate(batch) if (f := _failure(
            lambda k=k, row=row: run_row(row, mode) if alone else _compare(
                row, mode, results[k], None, [], inputs[cuts[k]:cuts[k + 1]])))]
    assert not failed, "\n".join(failed)


def _failure(check):
    """The message of ``check()``'s AssertionError, or None."""
    try:
        check()
    except AssertionError as error:
        return str(error)
    return None


def _compare(row, mode, actual, exc, said, ours):
    expected, expected_exc, expected_warnings, theirs = _numpy_outcome(row)
    where = f"\n  row {row.id} [{mode}]: {row.expr}"
    if expected_exc is not None or exc is not None:
        assert expected_exc is not None, f"npjax raised {exc!r}{where}"
        assert exc is not None, f"NumPy raised {expected_exc!r}, npjax did not{where}"
        assert family(exc) is family(expected_exc), (
            f"NumPy raised {expected_exc!r}, npjax {exc!r}{where}")
    elif row.values:
        assert_same(actual, expected, name=_tolerance_key(row), where=where,
                    check_sign_of_zero=True)
    else:
        _same_kind(actual, expected, where)
    assert said == expected_warnings, f"warnings {said} != NumPy's {expected_warnings}{where}"
    for k, (got, want) in enumerate(zip(ours, theirs)):
        assert_same(got, want, where=f"{where} (input {row.names[k]} afterwards)")


# Lazy and npjax.jit runs share programs: up to BATCH rows that NumPy runs without an
# exception or a warning (and that trace, and are not xfail) run as one lazy flush or one
# compiled function (one test each, so pytest-xdist never compiles a batch twice), each row
# still compared on its own. (One program per row compiled for ~60 ms each.)
BATCH = 24
BATCHED = ("lazy", "jit")


def _batchable(row):
    record = NATIVE.get(row.record)
    if row.trace or row.xfail or (record is not None and record.trace):
        return False
    _, exc, said, _ = _numpy_outcome(row)
    return exc is None and not said


@functools.cache
def _batches():
    rows = [row for row in ROWS if _batchable(row)]
    return [tuple(rows[k:k + BATCH]) for k in range(0, len(rows), BATCH)]


def _batch_function(batch):
    fns = [_function(row) for row in batch]
    cuts = np.cumsum([0] + [len(row.names) for row in batch]).tolist()

    def run(*flat):
        return tuple(fn(npjax, *flat[cuts[k]:cuts[k + 1]]) for k, fn in enumerate(fns))
    return run, cuts


def _same_kind(actual, expected, where):
    """Shapes and dtypes only (values that come from another random stream)."""
    if isinstance(expected, tuple | list):
        assert len(actual) == len(expected), where
        for a, e in zip(actual, expected):
            _same_kind(a, e, where)
    elif isinstance(expected, np.ndarray | np.generic):
        assert np.shape(actual) == expected.shape, f"shape{where}"
        assert np.asarray(actual).dtype == expected.dtype, f"dtype{where}"
    else:
        assert type(actual) is type(expected), f"{type(actual)} != {type(expected)}{where}"


def _tolerance_key(row):
    """A row with its own tolerance registers it with tests/tolerances.py under its id."""
    if row.tol is None:
        return row.record.rpartition(".")[2]
    key = f"op_table:{row.id}"
    tolerances.OVERRIDES.setdefault(key, {np.dtype(d): t for d, t in row.tol.items()})
    return key


@pytest.mark.parametrize("row, mode", _params())
def test_row(row, mode):
    run_row(row, mode)


@pytest.mark.parametrize("k, mode", _batch_params())
def test_rows_batched(k, mode):
    run_batch(_batches()[k], mode)


def test_every_native_record_has_a_row():
    covered = {row.record for row in ROWS}
    missing = sorted(set(NATIVE) - covered - set(EXCLUDED))
    assert missing == [], "native records with neither a row nor an EXCLUDED reason"


def test_exclusions_are_current_and_reasoned():
    covered = {row.record for row in ROWS}
    for key, reason in EXCLUDED.items():
        assert key in NATIVE, f"{key} is not a native record: drop it from EXCLUDED"
        assert key not in covered, f"{key} has a row: drop it from EXCLUDED"
        assert len(reason) > 20, key


def test_row_marks_name_rows():
    ids = {row.id for row in ROWS}
    assert set(TRACE) | set(XFAIL) | set(NO_VALUES) | DEVICE_THOROUGH <= ids


def test_rows_name_native_records_and_ids_are_unique():
    assert all(row.record in NATIVE for row in ROWS), [
        row.record for row in ROWS if row.record not in NATIVE]
    ids = [row.id for row in ROWS]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
