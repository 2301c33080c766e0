#!/usr/bin/env bash
# One prepared run on a machine with a TPU (the sessions' `device` tool), from the repository
# root, writing into $OUT (default ./tpu_out). The chip admits one process at a time, so every
# step runs in one process after the other (no pytest -n), and each has its own time limit, so
# one slow step cannot starve the others; each suite kernel runs in a process of its own, so a
# compile that never ends or a process abort costs that kernel only. Steps (STEPS, comma
# separated): import, overhead, threshold, float64, complex, accurate, probe (the complex64
# and float32 special values of jax.numpy and npjax, exp's ulps and compile time:
# tpu_complex64_probe.py), sort (capability_probe.py's sorts of every dtype and shape,
# process aborts caught), edge (capability_probe.py's ufuncs and functions on one-element arrays
# of bool, int8, uint8, int16, float16), npjax (capability_probe.py's every function, ufunc,
# linalg and fft call on bool, int64, float32, float64, complex128; PROBE_ONLY narrows it:
# 1,400 cases and more, over two calls), examples, tests, costs (check_cost.py over
# COST_KERNELS, scatter_forms.py), compile, suite, suite_float32 (the kernels' inputs as
# float32: the chip's own type), suite_device, run in that order.
# A device call lasts at most 10 minutes: every time limit is cut to what is left of BUDGET_S
# (default 570 s, counted from the start), so the default steps (import, float64, complex,
# examples, tests, suite over the kernels that fit) end within one call. The rest over more
# calls, e.g. STEPS=suite KERNELS=chain,monte_carlo,... KERNEL_S=110, then STEPS=compile.
# The project is not installed there: PYTHONPATH is the checkout (plus the wheels the
# caller installed, e.g. array-api-compat under /tmp/site).
# The device tool returns at most 8 files from $OUT: PACK_TO=DIR writes the results under
# $OUT (give it a scratch folder) and packs them into DIR/tpu_results.tgz after every step,
# so a call cut short still returns what finished:
#   OUT=/tmp/o PACK_TO=$OUT STEPS=compile,suite benchmarks/tpu_check.sh
set -u
OUT=${OUT:-tpu_out}
mkdir -p "$OUT"
PACK_TO=${PACK_TO:-}
pack() { [ -n "$PACK_TO" ] && tar czf "$PACK_TO/tpu_results.tgz" -C "$OUT" . ; return 0; }
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 TQDM_DISABLE=1 MPLBACKEND=Agg
PY=${PY:-python3}
STEPS=${STEPS:-import,float64,complex,examples,tests,suite}
BUDGET_S=${BUDGET_S:-570}
COMPLEX_S=${COMPLEX_S:-60}  # complex128 on the chip: npjax's calls, then the raw cases
SIZE=${SIZE:-large}
# the default call reaches the first few (in this order); the others where KERNELS names them
KERNELS=${KERNELS:-jacobi_2d,fdtd_2d,cfd_1d,histogram,life,ar_rows,softmax_mlp,fft_conv,chain,monte_carlo,mandelbrot,heat_3d,kmeans,nbody,gravity_masks,whiten_checks}
KERNELS_DEVICE=${KERNELS_DEVICE:-nbody,kmeans,whiten_checks,histogram,softmax_mlp,mandelbrot}
KERNEL_S=${KERNEL_S:-30}    # per kernel, all its variants
# compile: first calls of npjax.jit against hand-written jax.jit (tpu_compile_probe.py), one
# process per kernel and variant, each under COMPILE_STEP_S; within one 10-minute call the
# costs: check_cost.py's kernels (the floating-point check's share, fusions per program)
COST_KERNELS=${COST_KERNELS:-jacobi_2d,fdtd_2d,heat_3d,cfd_1d,nbody,mandelbrot}
# defaults do jacobi_2d and cfd_1d (then COMPILE_KERNELS=fdtd_2d,heat_3d in another call).
COMPILE_KERNELS=${COMPILE_KERNELS:-jacobi_2d,cfd_1d}
COMPILE_VARIANTS=${COMPILE_VARIANTS:-contraction,hand,npjax,npjax_exact,npjax_aot,npjax_lower,npjax_fold}
COMPILE_STEP_S=${COMPILE_STEP_S:-60}
COMPILE_S=${COMPILE_S:-560}  # the whole step (each finished step is already written)
# Eager device dispatch is left out by default: one eager call of the large chain takes 4.5 s
# on the chip (one program per operation), and the default mode there is lazy. The autojit
# columns: its first call, and its steady state (issue 35's target: within 1.5x of hand).
VARIANTS=${VARIANTS:-numpy,npjax_lazy,npjax_jit,jax_hand,npjax_autojit,npjax_autojit_steady}
SLOW_S=${SLOW_S:-5}         # a variant whose first call takes longer is timed once
EXAMPLE_S=${EXAMPLE_S:-45}  # per example, npjax and NumPy runs
TEST_S=${TEST_S:-180}
# the files the chip has not run whole (docs/tpu.md "Not done yet"; run whole before:
# test_capabilities, test_jit, test_fft, test_ufuncs, test_reductions, test_products,
# test_statistics, test_linalg, test_linalg_single_routes, test_device_special_values,
# test_selection, test_lazy; test_op_table compiles per case: last)
TESTS=${TESTS:-tests/test_lazy_capable.py \
tests/test_operators.py tests/test_creation.py \
tests/test_dtypes.py tests/test_casts.py tests/test_scalars.py tests/test_shape_ops.py \
tests/test_views.py tests/test_indexing.py tests/test_op_table.py}

limit() {  # the smaller of $1 seconds and what is left of BUDGET_S (at least 1)
    local left=$((BUDGET_S - SECONDS))
    if [ "$left" -lt "$1" ]; then echo $((left > 1 ? left : 1)); else echo "$1"; fi
}
has() { case ",$STEPS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

probe_part() {  # $1: capability_probe.py's case prefix (sort, edge, npjax), $2: its time limit
    local s      # (PROBE_ONLY: a narrower regular expression over the case keys)
    s=$(limit "$2")
    timeout "$s" $PY benchmarks/capability_probe.py --out "$OUT/$1" --only "${PROBE_ONLY:-^$1:}" \
        --total $((s > 20 ? s - 10 : 10)) > "$OUT/$1.log" 2>&1
    grep -v '"ok"\|"start"' "$OUT/$1/capability_probe.jsonl" | tail -n 30
    tail -n 2 "$OUT/$1.log"
    pack
}

run_suite() {  # $1: kernels, $2: output folder, $3...: suite options
    local kernels=$1 dir=$2
    shift 2
    for k in ${kernels//,/ }; do
        mkdir -p "$dir/$k"
        timeout "$(limit $KERNEL_S)" $PY benchmarks/suite.py --quick --size "$SIZE" --slow-s "$SLOW_S" \
            --only "$k" --variants "$VARIANTS" --out "$dir/$k" "$@" > "$dir/$k/log.txt" 2>&1
        local rc=$?
        grep -E "FAILED|MISMATCH|ms  \(" "$dir/$k/log.txt" | tail -n 6
        echo "   $k: exit $rc, last step: $(grep -E '^ +[a-z_]+ +first call' "$dir/$k/log.txt" \
            | tail -n 1 | xargs)"
    done
    $PY - "$dir" <<'EOF'
import glob, json, sys
sys.path.insert(0, "benchmarks")
import suite
out = sys.argv[1]
records, machine, size, placement = [], None, "large", "auto"
for path in sorted(glob.glob(f"{out}/*/bench_*.json")):
    with open(path) as f:
        data = json.load(f)
    records += data["kernels"]
    machine, size, placement = data["machine"], data["size"], data["placement"]
if records:
    summary = suite.summarize(records)
    text = suite.table(records, summary, machine, size, placement)
    if data.get("float32"):
        text = "Inputs float32 (`--float32`).\n\n" + text
    with open(f"{out}/bench_{size}.md", "w") as f:
        f.write(text)
    with open(f"{out}/bench_{size}.json", "w") as f:
        json.dump({"machine": machine, "size": size, "placement": placement,
                   "kernels": records, "summary": summary}, f, indent=1, default=str)
    print(text)
EOF
}

if has import; then
    echo "== import"
    timeout "$(limit 120)" $PY -c "
import jax, numpy, sys, time
t = time.perf_counter()
import npjax as np
a = np.arange(5.0)
print(sys.version.split()[0], 'jax', jax.__version__, 'numpy', numpy.__version__, jax.devices())
print(a + 1, (a * a).sum(), np.linalg.solve(np.eye(2) * 2, np.ones(2)), np.fft.fft(a)[1])
print('first calls', round(time.perf_counter() - t, 2), 's')" || exit 1
    pack
fi
if has overhead; then
    echo "== overhead"
    timeout "$(limit 90)" $PY benchmarks/overhead.py --quick --out "$OUT"
    pack
fi
if has threshold; then
    echo "== threshold: one elementwise chain per placement and size"
    timeout "$(limit 90)" $PY benchmarks/threshold.py --quick
    pack
fi
if has float64; then
    echo "== float64 bits: raw JAX on the chip, then npjax with every array on the device"
    timeout "$(limit 60)" $PY benchmarks/tpu_float64_bits.py > "$OUT/float64_bits.txt" 2>&1
    timeout "$(limit 60)" $PY benchmarks/tpu_float64_bits.py --npjax > "$OUT/float64_bits_npjax.txt" 2>&1
    grep -E "identical|->" "$OUT/float64_bits_npjax.txt" | head -n 8
    echo "   float64 ufuncs, eagerly, against NumPy (units of the suites' tolerance)"
    timeout "$(limit 240)" $PY -c "import npjax, runpy, sys; npjax.set_policy(mode='eager')
sys.argv = ['ulps', 'exp,log,sin,cos,arccos,tanh,sqrt,power,add,multiply,divide,remainder,sum,matmul', 'float64']
runpy.run_path('benchmarks/ulps.py', run_name='__main__')" > "$OUT/ulps_float64.md" 2>&1
    tail -n 16 "$OUT/ulps_float64.md"
    pack
fi
if has complex; then
    echo "== complex128: a script's calls with every array on the device, then jax.numpy's cases"
    timeout "$(limit 90)" $PY benchmarks/complex_check.py --placement device > "$OUT/complex_check.txt" 2>&1
    echo "   complex_check exit $?: $(grep -E 'run:|lazy:' "$OUT/complex_check.txt" | tr '\n' ' ')"
    timeout "$(limit $COMPLEX_S)" $PY benchmarks/tpu_complex_compile.py --out "$OUT" \
        > "$OUT/complex_compile.txt" 2>&1
    echo "   complex cases not ok: $(grep -vc ' ok ' "$OUT/complex_compile.txt")"
    pack
fi
if has accurate; then
    echo "== float32 log/tanh/fmod... through npjax's TPU rules (_accurate.py) against NumPy"
    timeout "$(limit 180)" $PY benchmarks/accurate_ulps.py --stride 1021 > "$OUT/accurate_ulps.md" 2>&1
    cat "$OUT/accurate_ulps.md" | cut -c1-150
    pack
fi
if has probe; then
    echo "== complex64/float32 special values and exp's cost (tpu_complex64_probe.py)"
    timeout "$(limit 150)" $PY benchmarks/tpu_complex64_probe.py > "$OUT/complex64_probe.txt" 2>&1
    grep -E "^npjax|rule" "$OUT/complex64_probe.txt" | cut -c1-160
    pack
fi
if has sort; then
    echo "== sorts of each dtype and shape, process aborts caught (capability_probe.py sort:)"
    probe_part sort 150
fi
if has edge; then
    echo "== every ufunc and function on one-element arrays of the narrow dtypes (aborts caught)"
    probe_part edge 400
fi
if has npjax; then
    echo "== every npjax function, ufunc, linalg and fft call on bool, int64, float32, float64,"
    echo "   complex128, every array on the TPU (capability_probe.py npjax:, aborts caught)"
    probe_part npjax 540
fi
if has examples; then
    echo "== examples under --compare (npjax's run and NumPy's, each timed)"
    for ex in examples/*.py; do
        extra=""
        [ "$(basename "$ex")" = option_pricing.py ] && extra="--random numpy"
        ( cd "$OUT" && timeout "$(limit $EXAMPLE_S)" $PY -m npjax run --compare $extra \
            --report-json "$(basename "$ex" .py).report.json" "$OLDPWD/$ex" \
            > "$(basename "$ex" .py).compare.txt" 2>&1 )
        echo "   $ex: exit $? $(grep -E 'MATCH|DIFFER|npjax .* s|numpy .* s' \
            "$OUT/$(basename "$ex" .py).compare.txt" | tail -n 3 | tr '\n' ' ')"
    done
    pack
fi
if has tests; then
    echo "== parity suites, every array on the TPU, one process"
    # shellcheck disable=SC2086
    # SIGINT at the limit: pytest stops and still prints its summary of failures
    TESTS_FAILURE_LOG=$OUT/failures.txt HYPOTHESIS_PROFILE=rerun-ci timeout -s INT -k 20 "$(limit $TEST_S)" $PY -m pytest -q -p no:cacheprovider \
        -p no:benchmark --npjax-placement=device -rfE ${TEST_K:+-k "$TEST_K"} $TESTS \
        > "$OUT/pytest.log" 2>&1
    echo "pytest exit $?"
    tail -n 40 "$OUT/pytest.log"
    pack
fi
if has costs; then
    echo "== npjax.jit's programs against the hand-written ones (check_cost.py), scatter forms"
    timeout "$(limit 150)" $PY benchmarks/check_cost.py ${COST_KERNELS//,/ } > "$OUT/costs.txt" 2>&1
    timeout "$(limit 60)" $PY benchmarks/scatter_forms.py >> "$OUT/costs.txt" 2>&1
    grep -v -i warn "$OUT/costs.txt" | cut -c1-200
    pack
fi
if has compile; then
    echo "== first calls (compile) of npjax.jit and hand-written jax.jit, one process per step"
    timeout "$(limit $COMPILE_S)" $PY benchmarks/tpu_compile_probe.py --out "$OUT" \
        --kernels "$COMPILE_KERNELS" --variants "$COMPILE_VARIANTS" --step-s "$COMPILE_STEP_S"
    pack
fi
if has suite; then
    echo "== $SIZE preset, default placement, one process per kernel (${KERNEL_S}s each)"
    run_suite "$KERNELS" "$OUT/suite"
    pack
fi
if has suite_float32; then
    echo "== $SIZE preset, float32 inputs, default placement"
    run_suite "$KERNELS" "$OUT/suite_float32" --float32
    pack
fi
if has suite_device; then
    echo "== $SIZE preset, every array on the device"
    run_suite "$KERNELS_DEVICE" "$OUT/suite_device" --placement device
    pack
fi
