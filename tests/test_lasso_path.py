"""The LARS-lasso homotopy against scikit-learn's lars_path, knot by knot, drops included."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.linear_model import lars_path

from ufskit.lasso_path import _delete_column, lasso_lars_at_cardinality, use_gram


def sklearn_knots(X, y, Gram):
    """scikit-learn's lasso path and its non-zero counts (a coefficient leaving is exactly 0 there only
    up to rounding, so counts use a relative threshold)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, _, coefs = lars_path(X, y, Gram=Gram, method="lasso", max_iter=5000)
    scale = np.abs(coefs).max(axis=0, keepdims=True)
    return coefs, (np.abs(coefs) > 1e-10 * scale).sum(axis=0)


@pytest.mark.parametrize("shape", [(30, 200), (40, 400), (200, 30), (50, 50)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_cardinality_matches_the_first_sklearn_knot_that_reaches_it(shape, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal(shape)
    y = X[:, :3] @ np.array([3.0, -2.0, 1.0]) + rng.standard_normal(shape[0])
    Gram = X.T @ X if shape[0] >= shape[1] else None
    coefs, nnz = sklearn_knots(X, y, Gram)
    for m in range(1, nnz.max() + 1):
        expected = coefs[:, np.flatnonzero(nnz >= m)[0]]
        ours = lasso_lars_at_cardinality(X, y, m, Gram)
        assert_allclose(ours, expected, atol=1e-9 * np.abs(expected).max())


def test_the_paths_with_and_without_gram_agree(rng):
    X = rng.standard_normal((60, 150))
    y = rng.standard_normal(60)
    for m in (5, 40, 60):
        assert_allclose(lasso_lars_at_cardinality(X, y, m, X.T @ X), lasso_lars_at_cardinality(X, y, m), atol=1e-10)


def test_drops_happen_on_these_paths_and_are_followed(rng):
    # the wide random case drops variables (scikit-learn's path count goes down), and the knot after
    # a drop still matches: covered above; here the path to n non-zeros is an exact fit
    X = rng.standard_normal((25, 300))
    y = rng.standard_normal(25)
    _, nnz = sklearn_knots(X, y, None)
    assert np.any(np.diff(nnz) < 0)
    a = lasso_lars_at_cardinality(X, y, 1000)
    assert np.count_nonzero(a) == 25
    assert_allclose(X @ a, y, atol=1e-8)


def test_collinear_copies_never_enter_together(rng):
    X = rng.standard_normal((40, 10))
    X = np.hstack([X, X[:, :3]])  # exact copies of the first three columns
    y = X[:, 0] - X[:, 1] + 0.1 * rng.standard_normal(40)
    a = lasso_lars_at_cardinality(X, y, 13)
    assert not np.any((a[:3] != 0) & (a[10:] != 0))
    assert np.count_nonzero(a) <= 10


def test_deleting_a_column_keeps_a_cholesky_factor(rng):
    A = rng.standard_normal((30, 8))
    R = np.linalg.cholesky(A.T @ A).T
    for k in (0, 3, 7):
        keep = np.delete(np.arange(8), k)
        R_k = _delete_column(R, k)
        assert_allclose(np.triu(R_k), R_k, atol=1e-14)
        assert_allclose(R_k.T @ R_k, (A.T @ A)[np.ix_(keep, keep)], atol=1e-10)


def test_gram_is_formed_only_when_it_pays():
    assert use_gram(n=1440, d=1024, n_steps=10)  # d <= n
    assert use_gram(n=1427, d=4322, n_steps=5 * 300)  # RELATHE, K = 5
    assert not use_gram(n=96, d=4026, n_steps=5 * 96)  # lymphoma: a pass over X per step is cheaper
    assert not use_gram(n=100, d=20_000, n_steps=30 * 100)  # the d x d matrix would not fit the cap
