"""Lazy mode's floating-point checks inside a recorded program: which checked results are
watched where (``_stored_checks``, ``_watch``), and the one-by-one replay that makes each
recorded check with its own error state when the program's flag says something was not
finite (``_replay_checks``)."""

from __future__ import annotations

import threading
from collections import Counter

import jax

from npjax._runtime._finite_watch import FiniteWatch
from npjax._runtime._thread_checks import check_now, hold


def _stored_checks(spec: list, out_refs: tuple, lo: int, hi: int) -> dict:
    """Checked calls of ``spec[lo:hi]`` with one result that a later call of that range
    stores into a view of an array (whose new value no later store of the range updates)
    and nothing else uses: {store's position: checked call's position, and -1 - checked
    call's position: store's position}."""
    uses = Counter(r for e in spec for r in e[2] if type(r) is not int)
    uses.update(out_refs)
    # array values that a later store of the range updates (in place: a value read back
    # before that would need a copy of the array)
    updated = {e[2][0] for e in spec[lo:hi] if e[0].store is not None and e[2]}
    later: dict = {}
    for s in range(lo, hi):
        k, _, refs, _ = spec[s]
        if k.store is None or k.store[0] != "view" or not refs or type(refs[-1]) is int:
            continue
        i, o = refs[-1]
        if lo <= i < s and o == 0 and spec[i][3] is not None and uses[(i, o)] == 1 and \
                (s, 0) not in updated:
            later[s] = i
            later[-1 - i] = s
    return later


def _watch(watch: FiniteWatch, waiting: dict, later: dict, i: int, entry: tuple,
           leaves: list, outs: list) -> None:
    """Watch the results of call ``i`` when it is checked. A result a later call stores
    into a view (``later``) is checked there instead, read back from the array's new value:
    checked in the expression, XLA would compute the expression a second time for the
    check, reading the arrays of its operands after the store no longer needs them, and
    then keep a copy of any such array that a later store updates in place (a copy of a
    whole array per iteration of a rolled loop)."""
    k, treedef, _, check = entry
    if check is not None:
        if later.get(-1 - i) is not None and len(outs) == 1:
            waiting[i] = (outs, check, leaves)
        else:
            watch.add(outs, check[0], leaves if check[1] else None)
    made = waiting.pop(later.get(i), None)
    if made is not None:
        shown, check, operands = made
        _, dyns, _ = jax.tree.unflatten(treedef, leaves)
        back = outs[0]  # (``_core._views.apply_get``: the core is the layer above)
        for step, dyn in zip(k.store[1], dyns):
            back = step.get(back, dyn)
        if back.shape == shown[0].shape and back.dtype == shown[0].dtype:
            shown = [back]  # the stored value itself (no cast, no broadcast)
        watch.add(shown, check[0], operands if check[1] else None)


def _replay_checks(checks: list, spec: list, inputs: list) -> None:
    """Run the calls one by one and make each recorded error-state check on its values;
    a check of a call another thread recorded waits for that thread (``_thread_checks``)."""
    results: list = []
    me = threading.get_ident()
    for recorded, (k, treedef, refs, _) in zip(checks, spec):
        leaves = [inputs[r] if type(r) is int else results[r[0]][r[1]] for r in refs]
        out = k.fn(*jax.tree.unflatten(treedef, leaves))
        outs = jax.tree.leaves(out)
        results.append(outs)
        if recorded is not None:
            check, st, owner = recorded[:3]
            where = recorded[5]
            if owner != me:
                hold(owner, check, st, list(leaves), tuple(outs), where)
            else:
                check_now(check, st, list(leaves), tuple(outs), where)
