"""IVFS kernel: every loss bit for bit what the kernel of the previous round computed.

``previous_losses`` redoes, one subset at a time and without work buffers, the
operations of that kernel in their order: the subset's Gram by numpy's syrk
path, squared distances (|x_i|^2 + |x_j|^2) - 2 x_i'x_j on the strict upper
triangle (row-major), clipped at 0 and square-rooted; the full-data distances
gathered from ``full_distances``; each side divided by its largest entry (by 1
when that is 0); l_inf the largest |difference|, l1 twice the triangle's sum,
l2 the square root of twice its sum of squares. Any change of the kernel's
arithmetic (batching, layout, gathers) must leave every loss identical, so IVFS
scores and rankings on the same draws stay.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from ufskit.selectors.ivfs import IVFS
from ufskit.selectors.ivfs_kernel import full_distances, subset_losses


def _triangle_dists(A, iu, ju):
    G = np.matmul(A[None], A[None].transpose(0, 2, 1))[0]
    sq = np.diagonal(G)
    return np.sqrt(np.maximum((sq[iu] + sq[ju]) - G[iu, ju] * 2.0, 0.0))


def previous_losses(X, samples, features, loss, dtype="float64", precompute=True):
    """The previous kernel's losses, subset by subset (the oracle)."""
    n = X.shape[0]
    m = samples.shape[1]
    iu, ju = np.triu_indices(m, 1)
    full = full_distances(X, dtype)
    Xd = X.astype(dtype)
    out = np.empty(samples.shape[0])
    for t, (rows, cols) in enumerate(zip(samples, features)):
        on_all = full[rows[iu] * n + rows[ju]] if precompute else _triangle_dists(Xd[rows], iu, ju)
        diff = np.stack([on_all, _triangle_dists(Xd[np.ix_(rows, cols)], iu, ju)])
        top = diff.max(axis=1, keepdims=True)
        top[top == 0] = 1.0
        diff /= top
        diff = diff[:1] - diff[1:]
        if loss == "l2":
            out[t] = np.sqrt(2.0 * np.einsum("bt,bt->b", diff, diff, dtype=np.float64))[0]
        elif loss == "linf":
            out[t] = np.abs(diff).max()
        else:
            out[t] = 2.0 * np.abs(diff).sum(axis=1, dtype=np.float64)[0]
    return out


def tied_data(rng):
    """Data with many tied distances: duplicate rows, a constant column, small integer counts, a zero block."""
    dup = rng.standard_normal((30, 25))
    dup[[5, 9, 11]] = dup[2]
    dup[:, 4] = 0.0
    counts = rng.poisson(0.3, size=(35, 80)).astype(float)
    counts[:6] = 0.0  # subsets of these rows have all distances 0 (top 0)
    grid = rng.integers(0, 3, size=(40, 12)).astype(float)
    return {"duplicates": dup, "counts": counts, "grid": grid, "gauss": rng.standard_normal((50, 120))}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("loss", ["linf", "l1", "l2"])
def test_losses_bit_identical_to_previous_kernel(rng, loss, dtype):
    for name, X in tied_data(rng).items():
        n, d = X.shape
        for m, p in [(3, 1), (4, 2), (n, 1), (10, 0.3), (n // 2, 0.5), (n, d)]:
            samples, features = IVFS(n_subsets=23, subset_samples=m, subset_features=p, random_state=m)._draw_subsets(
                n, d
            )
            for precompute, batch in [(True, None), (False, None), (True, 1), (False, 5)]:
                got = subset_losses(X, samples, features, loss, batch, precompute=precompute, dtype=dtype)
                expected = previous_losses(X, samples, features, loss, dtype, precompute)
                assert_array_equal(got, expected, err_msg=f"{name} m={m} p={p} {precompute=} {batch=}")


def test_protocol_shapes_bit_identical(rng):
    """Protocol-like subset shapes (n~ = 0.1 n or 10 and 0.5 n, d~ = 0.3 d and 0.5 d) on a tall and a wide matrix."""
    for n, d, m, p in [(300, 200, 30, 60), (300, 200, 150, 100), (60, 900, 10, 270), (60, 900, 30, 450)]:
        X = rng.standard_normal((n, d))
        samples, features = IVFS(n_subsets=12, subset_samples=m, subset_features=p, random_state=3)._draw_subsets(n, d)
        assert_array_equal(subset_losses(X, samples, features, precompute=True), previous_losses(X, samples, features, "linf"))
