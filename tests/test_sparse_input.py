"""scipy.sparse X: the selectors that accept it give the dense fit's scores without forming X densely;
the others refuse it with an error naming themselves (docs/selectors.md, "Sparse input")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from selector_checks import fit_peak_bytes
from sklearn.utils.estimator_checks import (
    check_estimator_sparse_array,
    check_estimator_sparse_matrix,
    check_estimator_sparse_tag,
)

from ufskit.selectors import NRFS, SELECTORS, nrfs_hubs

ACCEPTING = [name for name, cls in SELECTORS.items() if cls.accepts_sparse]
REFUSING = [name for name in SELECTORS if name not in ACCEPTING]
# the selectors issue 40 names, and settings that take each one's other code paths
VARIANTS = {
    "Variance": [{}],
    "LaplacianScore": [{}, {"weight": "cosine"}, {"weight": "binary", "n_neighbors": 3}],
    "SPEC": [{}, {"style": 1}, {"style": 3, "n_clusters": 3}, {"n_neighbors": 5}],
    "MCFS": [{}, {"max_nonzero": 4}, {"n_clusters": 3, "weight": "cosine", "max_nonzero": [2, 6]}],
    "Random": [{"random_state": 0}],
    "NRFS": [{"random_state": 0}, {"n_neighbors_features": 4, "fold": 1},
             {"similarity": "cosine", "n_neighbors_features": 4, "sampling": False}],
}


def sparse_data(seed: int, n: int = 50, d: int = 30, density: float = 0.3) -> np.ndarray:
    """Non-negative mostly-zero data (as counts or tf-idf are) with one all-zero and one constant column."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) * (rng.random((n, d)) < density)
    X[:, 4] = 0.0
    X[:, 9] = 2.5  # stored as explicit values: flat all the same
    return X


def fit_quietly(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X)


def test_the_issues_selectors_accept_sparse_input():
    assert {"Variance", "LaplacianScore", "SPEC", "MCFS", "NRFS"} <= set(ACCEPTING)
    assert set(VARIANTS) == set(ACCEPTING)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize(("name", "params"), [(n, p) for n in VARIANTS for p in VARIANTS[n]])
@pytest.mark.parametrize("seed", [0, 1])
def test_sparse_fit_gives_the_dense_scores_and_ranking(name, params, fmt, seed):
    X = sparse_data(seed)
    dense = fit_quietly(SELECTORS[name](**params), X)
    sparse = fit_quietly(SELECTORS[name](**params), sp.csr_matrix(X).asformat(fmt))
    assert_array_equal(sparse.degenerate_features_, dense.degenerate_features_)
    assert_array_equal(sparse.degenerate_features_, [4, 9])
    assert_allclose(sparse.scores_, dense.scores_, rtol=1e-10, atol=0)
    assert_array_equal(sparse.ranking_, dense.ranking_)
    assert_array_equal(sparse.transform(sp.csr_matrix(X)).toarray(), dense.transform(X))


@pytest.mark.parametrize("monkeypatched_hubs", [False, True])
def test_nrfs_on_sparse_text_gives_the_dense_coefficients(monkeypatch, monkeypatched_hubs):
    """Text-like data, more words than documents: NRFS's cosine layers in the dual form, from the hub terms
    (``nrfs_hubs``) when small patterns are kept as terms."""
    if monkeypatched_hubs:
        monkeypatch.setattr(nrfs_hubs, "MIN_ROWS", 4)
    rng = np.random.default_rng(3)
    X = rng.random((40, 150)) * (rng.random((40, 150)) < 0.05)
    X[:, :2] = rng.random((40, 2)) + 0.1  # words in every document: in nearly every subspace
    X = X[:, X.any(axis=0)]
    params = {"similarity": "cosine", "n_neighbors_features": 8, "n_clusters": 3, "fold": 1}
    dense = NRFS(**params).fit(X)
    sparse = NRFS(**params).fit(sp.csr_matrix(X))
    assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=1e-10)
    # the same ranking: words of identical patterns get the same coefficients in exact arithmetic, 4e-16 apart
    # between the two paths' differently ordered sums; snapped to one tie (ties.snap_round_off), they are ordered
    # by feature index, not by those last bits (before, ranks 55-64 permuted under OpenBLAS's Sandybridge kernel)
    assert_array_equal(sparse.ranking_, dense.ranking_)
    group = np.unique(np.round(dense.coef_, 9), axis=0, return_inverse=True)[1].ravel()
    assert len(np.unique(group)) > 90  # 95 distinct coefficient rows of 135 words: the check has teeth


@pytest.mark.parametrize("name", ACCEPTING)
def test_float32_sparse_input_is_scored_in_float64(name):
    """A float32 sparse X (kept as float32) scores as its values in float64 do, not as float32 arithmetic."""
    X32 = sparse_data(2).astype(np.float32)
    params = VARIANTS[name][0]
    dense = fit_quietly(SELECTORS[name](**params), X32.astype(np.float64))
    sparse = fit_quietly(SELECTORS[name](**params), sp.csr_matrix(X32))
    assert_allclose(sparse.scores_, dense.scores_, rtol=1e-10, atol=0)
    assert_array_equal(sparse.ranking_, dense.ranking_)


@pytest.mark.parametrize("name", ["Variance", "LaplacianScore", "SPEC"])
def test_wide_sparse_input_is_never_held_dense(name):
    """200 x 150,000 at 0.1 % non-zeros: 240 MB dense; the fit's peak is a few blocks of 16 MB."""
    X = sp.random(200, 150_000, density=0.001, format="csc", random_state=np.random.default_rng(0))
    assert fit_peak_bytes(SELECTORS[name](), X) < 0.4 * 8 * X.shape[0] * X.shape[1]


@pytest.mark.parametrize("name", REFUSING)
def test_the_others_refuse_sparse_input_naming_themselves(name):
    est = SELECTORS[name]()
    with pytest.raises(TypeError, match=rf"{name} does not accept sparse input.*X\.toarray\(\)"):
        est.fit(sp.csr_matrix(sparse_data(0)))


@pytest.mark.parametrize("check", [check_estimator_sparse_tag, check_estimator_sparse_array,
                                   check_estimator_sparse_matrix])
@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_scikit_learn_sparse_checks(name, check):
    est = SELECTORS[name]()
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    assert est.__sklearn_tags__().input_tags.sparse == (name in ACCEPTING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(name, est)
