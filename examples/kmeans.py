"""k-means clustering (Lloyd's algorithm) on generated 2-D points.

Four blobs of points are made deterministically (no random numbers: points spiral around four
centres), then k-means starts from four of the points and iterates until the labels settle.
Run: python kmeans.py [max_iterations]
"""

import sys

import numpy as np

max_iter = int(sys.argv[1]) if len(sys.argv) > 1 else 20

centres = np.array([[0.0, 0.0], [5.0, 1.0], [1.0, 6.0], [6.0, 6.0]])
per_blob = 50
t = np.arange(per_blob)
radius = 0.2 + 1.2 * (t / per_blob)
angle = 2.39996 * t  # golden angle: points fill a disc
offsets = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
points = np.concatenate([c + offsets for c in centres])  # (200, 2)

k = len(centres)
centroids = points[::13][:k].copy()  # a poor start: three of the four in the first blob
labels = np.zeros(len(points), dtype=np.int64)
for iteration in range(1, max_iter + 1):
    d2 = ((points[:, None, :] - centroids[None, :, :]) ** 2).sum(axis=2)  # (200, k)
    new_labels = d2.argmin(axis=1)
    changed = int((new_labels != labels).sum())
    labels = new_labels
    members = (labels[:, None] == np.arange(k)[None, :]).astype(np.float64)  # one-hot (200, k)
    counts = members.sum(axis=0)
    centroids = (members.T @ points) / counts[:, None]
    inertia = d2.min(axis=1).sum()
    print(f"iteration {iteration}: {changed} labels changed, inertia {inertia:.9f}")
    if changed == 0:
        break

print("cluster sizes:", counts.astype(np.int64))
print("centroids:")
print(centroids)
distance = np.sqrt(((centroids[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2))
print("distance of each centroid from the nearest true centre:", distance.min(axis=1))
