"""IVFS subset-loss kernel: the fused kernel against the previous stacked implementation (the oracle below).

``reference_losses`` is the loss code IVFS used before the fused kernel (full
n~ x n~ matrices, one stacked matmul per batch), kept verbatim as the oracle:
the float64 kernel must give bit-identical l_inf losses and l1/l2 losses within
rounding of the summation order, so the rankings the protocol reported stay.
"""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from ufskit.graph import pairwise_sq_dists
from ufskit.selectors.ivfs import IVFS, subset_losses
from ufskit.selectors.ivfs_kernel import full_distances


def _stacked_sq_dists(Xs):
    G = np.matmul(Xs, Xs.transpose(0, 2, 1))
    sq = np.einsum("bii->bi", G)
    D2 = sq[:, :, None] + sq[:, None, :] - 2.0 * G
    np.maximum(D2, 0.0, out=D2)
    idx = np.arange(Xs.shape[1])
    D2[:, idx, idx] = 0.0
    return D2


def _normalised_dists(D2):
    D = np.sqrt(D2)
    top = D.max(axis=(1, 2), keepdims=True)
    return np.divide(D, top, out=np.zeros_like(D), where=top > 0)


def _loss(diff, loss):
    if loss == "linf":
        return np.abs(diff).max(axis=(1, 2))
    if loss == "l1":
        return np.abs(diff).sum(axis=(1, 2))
    return np.sqrt(np.einsum("bij,bij->b", diff, diff))


def reference_losses(X, samples, features, loss="linf", batch_size=8, precompute=True):
    """The previous implementation of ``subset_losses`` (the oracle)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, d = X.shape
    k = samples.shape[0]
    D2_full = pairwise_sq_dists(X).ravel() if precompute else None
    X_flat = X.ravel()
    out = np.empty(k)
    for start in range(0, k, batch_size):
        rows = samples[start : start + batch_size]
        cols = features[start : start + batch_size]
        if precompute:
            full = D2_full[rows[:, :, None] * n + rows[:, None, :]]
        else:
            full = _stacked_sq_dists(X[rows])
        sub = _stacked_sq_dists(X_flat[rows[:, :, None] * d + cols[:, None, :]])
        out[start : start + batch_size] = _loss(_normalised_dists(full) - _normalised_dists(sub), loss)
    return out


def draws(X, k, m, p, seed):
    return IVFS(n_subsets=k, subset_samples=m, subset_features=p, random_state=seed)._draw_subsets(*X.shape)


def datasets(rng):
    """Gaussian data, z-scored-like data with duplicate rows and a constant column, and integer counts."""
    gauss = rng.standard_normal((40, 60))
    dup = rng.standard_normal((30, 25))
    dup[5] = dup[2]
    dup[9] = dup[2]
    dup[:, 4] = 0.0
    counts = rng.poisson(0.3, size=(35, 80)).astype(float)  # sparse: many coinciding sub-rows
    return {"gauss": gauss, "duplicates": dup, "counts": counts}


@pytest.mark.parametrize("loss", ["linf", "l1", "l2"])
@pytest.mark.parametrize("precompute", [True, False])
def test_float64_kernel_matches_previous_implementation(rng, loss, precompute):
    for name, X in datasets(rng).items():
        for m, p in [(3, 1), (5, 3), (12, 0.3), (X.shape[0], 0.5)]:
            samples, features = draws(X, 37, m, p, seed=len(name) + m)
            ref = reference_losses(X, samples, features, loss, precompute=precompute)
            got = subset_losses(X, samples, features, loss, precompute=precompute)
            if loss == "linf":
                assert_array_equal(got, ref, err_msg=f"{name} m={m} p={p}")
            else:  # one triangle summed and doubled: only the summation order differs
                assert_allclose(got, ref, rtol=1e-12, atol=1e-13, err_msg=f"{name} m={m} p={p}")


@pytest.mark.parametrize("loss", ["linf", "l1", "l2"])
def test_float64_scores_and_ranking_unchanged(rng, loss):
    X = rng.standard_normal((50, 40))
    est = IVFS(n_subsets=200, subset_samples=0.3, subset_features=0.3, loss=loss, random_state=5).fit(X)
    samples, features = est._draw_subsets(*X.shape)
    ref = reference_losses(X, samples, features, loss)
    counts = np.bincount(features.ravel(), minlength=40)
    totals = np.bincount(features.ravel(), weights=np.repeat(-ref, features.shape[1]), minlength=40)
    assert_allclose(est.ivfs_scores_, totals / counts, rtol=1e-9)
    assert_array_equal(np.argsort(-est.ivfs_scores_, kind="stable"), np.argsort(-totals / counts, kind="stable"))


@pytest.mark.parametrize("loss", ["linf", "l1", "l2"])
def test_float32_losses_are_float64_to_single_precision(rng, loss):
    X = rng.standard_normal((60, 50))
    samples, features = draws(X, 40, 0.3, 0.4, seed=1)
    exact = subset_losses(X, samples, features, loss)
    single = subset_losses(X, samples, features, loss, dtype=np.float32)
    assert single.dtype == np.float64
    assert_allclose(single, exact, rtol=1e-4)
    assert not np.array_equal(single, exact)  # the products really ran in single precision


def test_float32_selector_and_bad_dtype(rng):
    X = rng.standard_normal((40, 30))
    a = IVFS(n_subsets=300, subset_samples=0.5, random_state=0).fit(X)
    b = IVFS(n_subsets=300, subset_samples=0.5, random_state=0, dtype="float32").fit(X)
    assert_allclose(b.ivfs_scores_, a.ivfs_scores_, rtol=1e-4)
    assert_array_equal(b.inclusion_counts_, a.inclusion_counts_)
    for bad in ("float16", "int64", "double-ish"):
        with pytest.raises(ValueError, match="dtype"):
            IVFS(n_subsets=5, dtype=bad).fit(X)


def test_shared_full_distances_give_the_same_losses(rng):
    X = rng.standard_normal((25, 12))
    samples, features = draws(X, 30, 6, 4, seed=2)
    assert_array_equal(
        subset_losses(X, samples, features, full=full_distances(X)), subset_losses(X, samples, features, precompute=True)
    )
