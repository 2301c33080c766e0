"""First-call (compile) time of ``npjax.jit`` against the hand-written ``jax.jit`` on a TPU,
and the programs' op counts anywhere.

On the chip (one process per kernel and variant, each under ``--step-s`` seconds, so one
compile that never ends costs that step only)::

    python benchmarks/tpu_compile_probe.py --out "$OUT"

writes ``$OUT/tpu_compile_probe.txt`` (one line per step: kernel, variant, seconds or
"timeout"/"failed") and ``.json``. Variants: ``hand`` (the kernel file's ``jax.jit``
version, first call), ``npjax`` (``npjax.jit``, first call: trace + compile + run),
``npjax_lower`` (npjax.jit's program traced and lowered, then compiled by
``Lowered.compile()``: the compile alone, with npjax's compiler options), ``npjax_fold``
(the same program compiled with XLA's constant folding left on), ``npjax_exact``
(``npjax``'s first call with float64 products left unrounded on the TPU:
``_capabilities.PRODUCTS_EXACT``), ``npjax_aot`` (the same
program compiled for a compile-only TPU device: what ``--ops --compile`` measures on a
machine without a chip, to tell whether that measure stands for the chip's);
``contraction`` (once, first: whether XLA on the chip fuses a product into the addition
after it, the reason npjax.jit adds a -0.0 after products: ``_lazy.round_products``;
``a * b - c`` with ``c`` the rounded product, nonzero where contracted, under jax.jit,
npjax.jit, and npjax.jit with every float product unrounded: where jax.jit's count is 0,
``PRODUCTS_EXACT`` can name the TPU for that dtype).

Anywhere (a CPU machine too; JAX lowers for the TPU without one)::

    python benchmarks/tpu_compile_probe.py --ops [--kernels jacobi_2d,cfd_1d] [--dump DIR]
    python benchmarks/tpu_compile_probe.py --ops --compile   # + compile-only TPU compile

prints each program's StableHLO op counts for the TPU lowering (ops by name and element
type, while loops, calls, index ops on s64): npjax.jit's against the hand-written one.
``--compile`` needs ``libtpu`` importable (the wheel ``jax[tpu]`` pins; e.g. installed with
``pip install --target DIR`` and DIR on PYTHONPATH) and compiles for a compile-only v5e; it
adds what XLA's optimised program runs per loop iteration (``loop_kernels``: the chip
launches each fusion or other kernel of a while body once an iteration, some microseconds
each), and ``--dump`` writes that HLO too.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import importlib
import json
import os
import re
import subprocess
import sys
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

KERNELS = ("jacobi_2d", "cfd_1d", "fdtd_2d", "heat_3d")
VARIANTS = ("contraction", "hand", "npjax", "npjax_exact", "npjax_aot", "npjax_lower",
            "npjax_fold")
_AOT_ENV = {"TPU_ACCELERATOR_TYPE": "v5litepod-1", "TPU_WORKER_HOSTNAMES": "localhost",
            "TPU_SKIP_MDS_QUERY": "1"}


# --- StableHLO op counts -------------------------------------------------------------------

_OP = re.compile(r"^\s*(?:%[\w#:]+(?:,\s*%[\w#:]+)*\s*=\s*)?\"?((?:stablehlo|func|chlo|mhlo)"
                 r"\.[\w.]+|call)\"?")
_TYPE = re.compile(r"tensor<(?:[\dx?]*x)?(\w+)>")


def op_counts(text: str) -> dict:
    """Counts of a StableHLO module's ops: ``ops`` by "name type" (the element type of the
    first result, else of the first operand), and the structure: while loops and their
    nesting depth, calls, ops inside loop bodies (called functions counted at each call),
    64-bit ops, s64 compares and selects (index math), gathers/scatters/dynamic slices."""
    funcs: dict[str, list[str]] = {}
    name = None
    for line in text.splitlines():
        m = re.match(r"\s*func\.func (?:public |private )?@\"?([\w<>.-]+)\"?", line)
        if m:
            name = m.group(1)
            funcs[name] = []
        elif name is not None:
            funcs[name].append(line)

    def ops_of(lines: list[str]) -> list[tuple[str, str]]:
        out = []
        for line in lines:
            m = _OP.match(line)
            if m:
                arrow = line.rsplit("->", 1)
                # the result's element type: after "->", else the last type listed
                types = _TYPE.findall(arrow[1] if len(arrow) == 2 else line.split(" : ")[-1])
                out.append((m.group(1), (types[0] if len(arrow) == 2 else types[-1])
                            if types else ""))
        return out

    counts: collections.Counter = collections.Counter()
    structure: collections.Counter = collections.Counter()
    for lines in funcs.values():
        for op, ty in ops_of(lines):
            counts[f"{op.split('.')[-1]} {ty}"] += 1
            if op in ("call", "func.call"):
                structure["calls"] += 1
            if op == "stablehlo.while":
                structure["while"] += 1
            if ty in ("f64", "i64", "ui64", "complex<f64>"):
                structure["64-bit ops"] += 1
            if op.split(".")[-1] in ("gather", "scatter", "dynamic_slice",
                                     "dynamic_update_slice", "slice", "custom_call",
                                     "optimization_barrier", "reduce", "convert"):
                structure[op.split(".")[-1]] += 1
        for line in lines:
            if re.search(r"stablehlo\.(compare|select)\b", line) and \
                    re.search(r"tensor<i64>", line):
                structure["s64 index compares/selects"] += 1
            if "platform_index" in line or "stablehlo.case" in line:
                structure["platform cases"] += 1
            if "stablehlo.constant" in line:
                structure["constants"] += 1
    structure["ops"] = sum(counts.values())
    structure["functions"] = len(funcs)
    structure["loop body ops"] = _loop_ops(text, funcs)
    m = re.search(r"stablehlo\.while\(([^)]*)\)", text)
    structure["loop carry"] = m.group(1).count("%iterArg") if m else 0
    return {"ops": dict(sorted(counts.items())), "structure": dict(sorted(structure.items()))}


def _loop_ops(text: str, funcs: dict) -> int:
    """Ops run per iteration of the while loops (calls expanded, each time they are met)."""
    def body_ops(lines: list[str], seen: tuple = ()) -> int:
        n = 0
        for line in lines:
            if _OP.match(line):
                n += 1
            c = re.search(r"call @\"?([\w<>.-]+)\"?\(", line)
            if c and c.group(1) in funcs and c.group(1) not in seen:
                n += body_ops(funcs[c.group(1)], (*seen, c.group(1)))
        return n

    total = 0
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if "stablehlo.while" in lines[i]:
            depth, j = 0, i
            body: list[str] = []
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                body.append(lines[j])
                if depth <= 0 and j > i and "}" in lines[j] and "do {" not in lines[j]:
                    break
                j += 1
            total += body_ops(body[1:])
            i = j
        i += 1
    return total


_FREE = ("get-tuple-element", "bitcast", "parameter", "constant", "tuple")


def loop_kernels(hlo: str) -> dict:
    """Per iteration of the while loops of an optimised HLO module (``Compiled.as_text()``),
    what its bodies run at their top level: ``fusions``, ``other kernels`` (array ops outside
    fusions: copies, broadcasts, concatenates, pads, slices, dynamic-update-slices) and
    ``scalar ops`` (rank 0, outside fusions: on a TPU the scalar unit's, float64 emulated
    there in some 10-20 32-bit ops each), ``async copies`` (copy-start, slice-start: DMAs
    between memory spaces, apart from kernels); tuples, bitcasts and constants cost nothing."""
    comps: dict[str, list[str]] = {}
    name = None
    for line in hlo.splitlines():
        m = re.match(r"^(?:ENTRY )?%?([\w.\-]+) \(.*\) -> .* \{$", line)
        if m:
            name = m.group(1)
            comps[name] = []
        elif line.startswith("}"):
            name = None
        elif name is not None:
            comps[name].append(line)
    out: collections.Counter = collections.Counter()
    for body in re.findall(r"body=%([\w.\-]+)", hlo):
        for line in comps.get(body, ()):
            m = re.match(r"\s*(?:ROOT )?%\S+ = (\([^=]*?\)|\S+) ([\w\-]+)\(", line)
            if not m or m.group(2) in _FREE or m.group(2) == "while" or \
                    m.group(2).endswith("-done") or "ConcatBitcast" in line:
                continue
            if m.group(2) == "fusion":
                out["fusions"] += 1
            elif m.group(2).endswith("-start"):  # (a DMA between memory spaces)
                out["async copies"] += 1
            elif re.match(r"\w+\[\]", m.group(1)):
                out["scalar ops"] += 1
            else:
                out["other kernels"] += 1
    out["kernels"] = out["fusions"] + out["other kernels"]
    return {f"loop {k}": out[k] for k in ("kernels", "fusions", "other kernels", "scalar ops",
                                          "async copies")}


# --- the programs ----------------------------------------------------------------------------

FLOAT32 = False  # --float32: the kernels' float64 inputs as float32 (``suite.py --float32``)


def _runner(kernel: str, size: str) -> Any:
    from benchmarks.suite import Runner
    return Runner(importlib.import_module(f"benchmarks.kernels.{kernel}"), size, FLOAT32)


def _aot_sharding() -> Any:
    """A compile-only TPU v5e device (libtpu present, no chip needed)."""
    for k, v in _AOT_ENV.items():
        os.environ.setdefault(k, v)
    from jax.experimental import topologies
    from jax.sharding import SingleDeviceSharding
    topo = topologies.get_topology_desc("v5e:1x1", "tpu", chips_per_host_bounds=(1, 1, 1),
                                        num_slices=1, wrap=(False, False, False))
    return SingleDeviceSharding(topo.devices[0])


def lowered(kernel: str, size: str, which: str, sharding: Any = None,
            platforms: tuple[str, ...] | None = ("tpu",), options: dict | None = None) -> Any:
    """``jax.stages.Lowered`` of the hand-written (``which="hand"``) or npjax.jit program
    for ``platforms`` (None: this process's backend)."""
    import jax
    import numpy

    import npjax
    from npjax._compile._jit_lower import lower
    runner = _runner(kernel, size)
    mod = runner.mod
    if which == "hand":
        args = runner.prepare("jax_hand")
        if sharding is not None:
            args = [a if i in mod.STATIC else jax.ShapeDtypeStruct(numpy.shape(a), a.dtype,
                                                                   sharding=sharding)
                    for i, a in enumerate(args)]
        return mod.reference.trace(*args).lower(lowering_platforms=platforms)
    args = runner.prepare("npjax_jit")
    return lower(runner.jitted, (npjax, *args), platforms=platforms, sharding=sharding,
                 compiler_options=options)


def ops_report(kernels: list[str], size: str, dump: str | None, compile_: bool) -> None:
    os.environ.setdefault("NPJAX_CACHE_DIR", "off")  # (read at npjax's import, below)
    sharding = _aot_sharding() if compile_ else None
    for kernel in kernels:
        rows = {}
        for which in ("hand", "npjax"):
            low = lowered(kernel, size, which, sharding)
            text = low.as_text()
            if dump:
                os.makedirs(dump, exist_ok=True)
                with open(os.path.join(dump, f"{kernel}_{which}_tpu.mlir"), "w") as f:
                    f.write(text)
            rows[which] = op_counts(text)
            if compile_:
                t = time.perf_counter()
                compiled = low.compile()
                rows[which]["structure"]["aot compile s"] = round(time.perf_counter() - t, 2)
                hlo = compiled.as_text()
                rows[which]["structure"].update(loop_kernels(hlo))
                if dump:
                    with open(os.path.join(dump, f"{kernel}_{which}_tpu.hlo"), "w") as f:
                        f.write(hlo)
        print(f"== {kernel} ({size}): StableHLO for the TPU, hand-written | npjax.jit")
        for part in ("structure", "ops"):
            keys = sorted(set(rows["hand"][part]) | set(rows["npjax"][part]))
            for k in keys:
                a, b = rows["hand"][part].get(k, 0), rows["npjax"][part].get(k, 0)
                print(f"  {k:32s} {a:>7} {b:>7}")
        sys.stdout.flush()


# --- on the chip ------------------------------------------------------------------------------

@contextlib.contextmanager
def _products_exact() -> Any:
    """npjax.jit leaves every float product unrounded on a TPU meanwhile (float64 and
    complex128 are in ``_capabilities.PRODUCTS_EXACT`` already; float32 and complex64 are
    the question)."""
    from npjax._pure import _capabilities
    saved = _capabilities.PRODUCTS_EXACT
    _capabilities.PRODUCTS_EXACT = {"tpu": frozenset({"float32", "complex64", "float64",
                                                      "complex128"})}
    try:
        yield
    finally:
        _capabilities.PRODUCTS_EXACT = saved


def _contraction() -> dict:
    """Whether XLA contracts a product into the addition after it (one rounding, as a fused
    multiply-add), per dtype: ``a * b - c`` with ``c`` NumPy's rounded ``a * b`` is 0 in
    every element where the product is rounded apart (NumPy, eager code) and the product's
    rounding error where it is contracted; counted nonzero under jax.jit and under npjax.jit
    with and without the -0.0 it adds after products (``_lazy.round_products``). Where
    jax.jit's count is 0, ``PRODUCTS_EXACT`` can name the TPU for that dtype. Also the
    elements of ``r - (r / 127) * 127`` that differ from NumPy's (the division's rounding
    shows there too)."""
    import jax
    import numpy

    import npjax

    out = {}
    for dt in (numpy.float64, numpy.float32):
        rng = numpy.random.default_rng(0)
        a, b = (rng.random(2**16) + 0.5).astype(dt), (rng.random(2**16) + 0.5).astype(dt)
        c = a * b
        plain = jax.jit(lambda a, b, c: a * b - c)

        def fma(a: Any, b: Any, c: Any) -> Any:
            return a * b - c

        got = {"jax.jit": plain(a, b, c),
               "npjax.jit": npjax.jit(fma)(*map(npjax.asarray, (a, b, c)))}
        with _products_exact():
            got["npjax.jit unrounded"] = npjax.jit(fma)(*map(npjax.asarray, (a, b, c)))
        for name, g in got.items():
            out[f"{numpy.dtype(dt).name} a*b-c nonzero, {name}"] = int(
                (numpy.asarray(g) != 0).sum())
        r = (rng.random(2**16) * 1000).astype(dt)
        want = r - (r / dt(127)) * dt(127)
        out[f"{numpy.dtype(dt).name} r-(r/127)*127 differing, jax.jit"] = int(
            (numpy.asarray(jax.jit(lambda r, k: r - (r / k) * k)(r, dt(127))) != want).sum())
    return out


def _worker(kernel: str, variant: str, size: str) -> dict:
    import jax

    if variant == "contraction":
        return {"kernel": "-", "variant": variant, "backend": jax.default_backend(),
                "first_s": 0.0, "differ": _contraction()}

    import npjax
    from benchmarks.suite import _block
    runner = _runner(kernel, size)
    out: dict[str, Any] = {"kernel": kernel, "variant": variant,
                           "backend": jax.default_backend()}
    if variant == "hand":
        args = runner.prepare("jax_hand")
        t = time.perf_counter()
        _block(runner.mod.reference(*args))
        out["first_s"] = time.perf_counter() - t
    elif variant in ("npjax", "npjax_exact"):
        args = runner.prepare("npjax_jit")
        with _products_exact() if variant == "npjax_exact" else contextlib.nullcontext():
            t = time.perf_counter()
            _block(runner.jitted(npjax, *args))
            out["first_s"] = time.perf_counter() - t
        # (a loop left unrolled is the first suspect of a long compile)
        out["loops_rolled"] = [o.rolled for o in getattr(runner.jitted, "loops", ())]
    else:
        aot = variant == "npjax_aot"
        t = time.perf_counter()
        low = lowered(kernel, size, "npjax", _aot_sharding() if aot else None,
                      ("tpu",) if aot else None, {} if variant == "npjax_fold" else None)
        out["lower_s"] = time.perf_counter() - t
        out["ops"] = op_counts(low.as_text())["structure"]
        t = time.perf_counter()
        low.compile()
        out["compile_s"] = time.perf_counter() - t
    return out


def chip(out_dir: str, kernels: list[str], variants: list[str], size: str,
         step_s: float) -> None:
    os.makedirs(out_dir, exist_ok=True)
    results = []
    steps = [(k, v) for k in kernels for v in variants if v != "contraction"]
    if "contraction" in variants:
        steps.insert(0, ("-", "contraction"))
    for kernel, variant in steps:
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", kernel, variant,
               "--size", size]
        # no persistent cache: every step compiles (JAX's compile log on stderr)
        env = dict(os.environ, NPJAX_CACHE_DIR="off", JAX_LOG_COMPILES="1")
        t = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=step_s, env=env)
            lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
            rec = json.loads(lines[-1]) if p.returncode == 0 and lines else {
                "kernel": kernel, "variant": variant, "failed": p.returncode,
                "error": (p.stderr.strip().splitlines() or ["?"])[-1][:300]}
            # the slowest compiles JAX logged ("Finished XLA compilation of NAME in S sec")
            logged = re.findall(r"Finished XLA compilation of (.+?) in ([\d.]+) sec",
                                p.stderr)
            rec["xla_compiles"] = sorted(((n, round(float(s), 2)) for n, s in logged),
                                         key=lambda x: -x[1])[:5]
        except subprocess.TimeoutExpired as exc:
            err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else exc.stderr or ""
            rec = {"kernel": kernel, "variant": variant, "timeout_s": step_s,
                   "last_log": err.strip().splitlines()[-3:]}
        rec["wall_s"] = round(time.perf_counter() - t, 2)
        results.append(rec)
        sec = rec.get("first_s", rec.get("compile_s"))
        what = f"{sec:.2f} s" if sec is not None else (
            f"timeout {step_s:.0f} s" if "timeout_s" in rec else f"failed: {rec['error']}")
        line = f"{kernel:10s} {variant:12s} {what}"
        if "lower_s" in rec:
            line += f" (trace+lower {rec['lower_s']:.2f} s)"
        if "loops_rolled" in rec:
            line += f"; loops rolled {rec['loops_rolled']}"
        if rec.get("xla_compiles"):
            line += f"; slowest XLA compile {rec['xla_compiles'][0][1]:.2f} s"
        if "differ" in rec:
            line = f"contraction: elements differing from NumPy {rec['differ']}"
        print(line, flush=True)
        with open(os.path.join(out_dir, "tpu_compile_probe.txt"), "a") as f:
            f.write(line + "\n")
        # (after every step: the whole step may be stopped at its limit)
        with open(os.path.join(out_dir, "tpu_compile_probe.json"), "w") as f:
            json.dump(results, f, indent=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="on the chip: folder for tpu_compile_probe.{txt,json}")
    ap.add_argument("--ops", action="store_true", help="op counts of the TPU lowering")
    ap.add_argument("--compile", action="store_true",
                    help="with --ops: compile for a compile-only TPU (needs libtpu)")
    ap.add_argument("--dump", help="with --ops: write the StableHLO modules here")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--size", default="large")
    ap.add_argument("--step-s", type=float, default=90.0, help="limit of each step")
    ap.add_argument("--float32", action="store_true", help="float32 inputs (suite.py's)")
    ap.add_argument("--worker", nargs=2, metavar=("KERNEL", "VARIANT"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    global FLOAT32
    FLOAT32 = a.float32
    kernels = [k for k in a.kernels.split(",") if k]
    if a.worker:
        print(json.dumps(_worker(a.worker[0], a.worker[1], a.size)), flush=True)
    elif a.ops:
        ops_report(kernels, a.size, a.dump, a.compile)
    elif a.out:
        chip(a.out, kernels, [v for v in a.variants.split(",") if v], a.size, a.step_s)
    else:
        ap.error("give --out DIR (on the chip) or --ops")


if __name__ == "__main__":
    main()
