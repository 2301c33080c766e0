"""Two-layer MLP forward pass with ReLU and a numerically stable softmax (in-place ops)."""

import jax

NAME, KIND = "softmax_mlp", "ml"
SIZES = {"small": dict(batch=256, d=128, h=256, k=10),
         "large": dict(batch=4096, d=512, h=1024, k=100)}
STATIC = ()


def setup(rng, batch, d, h, k):
    return (rng.standard_normal((batch, d)), rng.standard_normal((d, h)) / d ** 0.5,
            rng.standard_normal(h), rng.standard_normal((h, k)) / h ** 0.5,
            rng.standard_normal(k))


def kernel(np, x, w1, b1, w2, b2):
    h = x @ w1
    h += b1
    np.maximum(h, 0.0, out=h)
    z = h @ w2
    z += b2
    z -= z.max(axis=1, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=1, keepdims=True)
    return z


@jax.jit
def reference(x, w1, b1, w2, b2):
    h = jax.nn.relu(x @ w1 + b1)
    return jax.nn.softmax(h @ w2 + b2, axis=1)
