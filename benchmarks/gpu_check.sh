#!/usr/bin/env bash
# One prepared run on a machine with a GPU (the sessions' `device` tool), from the repository
# root, writing into $OUT (default ./gpu_out): what the GPU gives for the per-call overhead,
# the host/device threshold table, the large preset of the data-parallel kernels under the
# default and the all-device placements, and the parity suites with every array on the GPU.
# Each step has its own time limit, so one slow step cannot take the others' time; every
# step writes its file as it goes.
set -u
OUT=${OUT:-gpu_out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_PREALLOCATE=false TQDM_DISABLE=1
PY=${PY:-python3}
# The kernels whose arrays are large at the large preset (the loop kernels over small
# matrices stay on the host under the default placement and would compile a program per
# window size with every array on the device: issue 16).
KERNELS=${KERNELS:-chain,monte_carlo,mandelbrot,heat_3d,jacobi_2d,fdtd_2d,cfd_1d,kmeans,nbody,softmax_mlp,fft_conv,histogram,life,gravity_masks,whiten_checks,ar_rows}
# With every array on the device: the kernels that keep some arrays on the host under the
# default placement (the others run the same way under both).
KERNELS_DEVICE=${KERNELS_DEVICE:-nbody,kmeans,whiten_checks,histogram,softmax_mlp,mandelbrot}
BENCH_S=${BENCH_S:-220}
BENCH_DEVICE_S=${BENCH_DEVICE_S:-110}
SIZE=${SIZE:-large}
SLOW_S=${SLOW_S:-5}  # a variant whose first call takes longer is timed once, not three times
TEST_S=${TEST_S:-100}  # 0: no parity suites
TESTS=${TESTS:-tests/test_ufuncs.py tests/test_linalg.py tests/test_reductions.py \
tests/test_statistics.py tests/test_products.py tests/test_fft.py}
WORKERS=${WORKERS:-8}

nvidia-smi -L 2>/dev/null
$PY -c "import jax, numpy, sys; print(sys.version.split()[0], 'jax', jax.__version__, 'numpy', numpy.__version__, jax.devices())"
$PY -c "import npjax as np; a = np.arange(5.0); print(a + 1, (a * a).sum(), np.linalg.solve(np.eye(2) * 2, np.ones(2)))" || exit 1

echo "== overhead"
timeout 50 $PY benchmarks/overhead.py --quick --out "$OUT"
if [ "${THRESHOLD:-1}" = 1 ]; then
    echo "== threshold: one elementwise chain per placement and size"
    timeout 50 $PY benchmarks/threshold.py --quick
fi
echo "== large preset, default placement"
timeout "$BENCH_S" $PY benchmarks/suite.py --quick --size "$SIZE" --slow-s "$SLOW_S" \
    --only "$KERNELS" --out "$OUT"
echo "== large preset, every array on the device"
timeout "$BENCH_DEVICE_S" $PY benchmarks/suite.py --quick --size "$SIZE" --slow-s "$SLOW_S" \
    --only "$KERNELS_DEVICE" --placement device --out "$OUT"
rm -f "$OUT"/*.png  # redrawn from the JSON where the files come back
[ "$TEST_S" = 0 ] && exit 0
echo "== parity suites, every array on the GPU"
# shellcheck disable=SC2086
HYPOTHESIS_PROFILE=rerun-ci timeout "$TEST_S" $PY -m pytest -q -p no:cacheprovider -p no:benchmark \
    -n "$WORKERS" --npjax-placement=device -rfE $TESTS > "$OUT/pytest.log" 2>&1
echo "pytest exit $?"
tail -40 "$OUT/pytest.log"
