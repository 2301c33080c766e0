"""The Mandelbrot set on a grid: escape-time iteration counts, an image and a saved array.

Each point c of the grid is iterated z -> z*z + c (in real arithmetic) until |z| > 2 or the
iteration limit; the counts are saved with np.save and drawn with matplotlib (Agg backend, no
window) to mandelbrot.png, both in the folder named by $EXAMPLES_OUT (default: examples-output
in the current folder, made if missing). The area of the set is estimated from the points that
never escape.
Run: python mandelbrot.py [height] [max_iterations]
"""

import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

height = int(sys.argv[1]) if len(sys.argv) > 1 else 200
max_iter = int(sys.argv[2]) if len(sys.argv) > 2 else 60
width = 3 * height // 2

x_min, x_max, y_min, y_max = -2.0, 1.0, -1.0, 1.0
cx = np.linspace(x_min, x_max, width)[None, :] * np.ones((height, 1))
cy = np.linspace(y_min, y_max, height)[:, None] * np.ones((1, width))

x = np.zeros((height, width))
y = np.zeros((height, width))
counts = np.zeros((height, width), dtype=np.int64)
for _ in range(max_iter):
    inside = x * x + y * y <= 4.0
    counts += inside
    x, y = (np.where(inside, x * x - y * y + cx, x),
            np.where(inside, 2.0 * x * y + cy, y))

in_set = counts == max_iter
cell = (x_max - x_min) / (width - 1) * (y_max - y_min) / (height - 1)
print(f"grid {height}x{width}, {max_iter} iterations")
print("points in the set:", in_set.sum())
print("estimated area:", in_set.sum() * cell)
print("mean escape count:", counts.mean())
print("escape counts along the middle row, every 25th point:", counts[height // 2, ::25])
histogram = np.bincount(counts.ravel(), minlength=max_iter + 1)
print("points escaping after 1..5 iterations:", histogram[1:6])

out_dir = os.environ.get("EXAMPLES_OUT", "examples-output")
os.makedirs(out_dir, exist_ok=True)
np.save(os.path.join(out_dir, "mandelbrot_counts.npy"), counts)
fig, ax = plt.subplots(figsize=(6, 4))
ax.imshow(np.log1p(counts), extent=(x_min, x_max, y_min, y_max), cmap="magma",
          origin="lower")
ax.set_title("Mandelbrot set: log(1 + escape count)")
fig.savefig(os.path.join(out_dir, "mandelbrot.png"), dpi=100)
print("saved mandelbrot_counts.npy and mandelbrot.png")
