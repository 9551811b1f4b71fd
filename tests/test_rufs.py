"""RUFS: parity with the first author's code (FSASL toolbox, under GNU Octave), its parts, its parameter limits.

The fixtures in tests/data/fsasl_parity/ are what the toolbox's ``fs_unsup_rufs`` (with its
``localLearnMx_KRR``, k = 5, ridge 0.1; nu = alpha = beta = 1, MaxIter 20, epsilon 1e-2) gave on the parity
sets of tests/parity_data.py from the K-means start stored beside them (rufs_start_*.csv, computed here and
fed to Octave): the row norms of its W (rufs_*.csv) and its cost at the end (summary.csv, evaluated by
``_Blocks.objective`` on its W, G, F). docs/fidelity/selectors-rufs.md has the table over three starts.
"""

from __future__ import annotations

import numpy as np
import pytest
from parity_data import PARITY_SETS, agreement, parity_matrix
from selector_checks import make_planted
from test_fsasl_parity import FIXTURES, SUMMARY

from ufskit.blas import single_threaded_blas
from ufskit.graph import knn_graph, mean_distance, pairwise_sq_dists
from ufskit.selectors import RUFS
from ufskit.selectors.rufs import _Blocks, kmeans_labels, local_learning_matrix, rufs_fit
from ufskit.validation import centred


def column(name: str) -> np.ndarray:
    return np.loadtxt(FIXTURES / f"{name}.csv", skiprows=1, ndmin=1)


@pytest.mark.parametrize("variant", ["authors", "paper"])
@pytest.mark.parametrize("name", PARITY_SETS)
def test_matches_the_authors_run_from_the_same_start(name, variant, mirror):
    """Same start, same settings: the same cost at the end (wdbc, ORL: to 1e-6; lymphoma 1e-3) and ranking."""
    X = parity_matrix(name, mirror)
    labels = column(f"rufs_start_{name}").astype(int)
    with single_threaded_blas():  # small products: threads only contend
        L = local_learning_matrix(X, 5, 0.1)
        W, _, _, objective = rufs_fit(X, L, labels, labels.max() + 1, nu=1.0, alpha=1.0, beta=1.0, max_iter=21,
                                      tol=1e-2, variant=variant)
    # lymphoma (d = 4026): the G descents, conditioned by the 1e7 penalty, amplify rounding (gap 4.6e-5)
    assert objective[-1] == pytest.approx(SUMMARY["RUFS", name, "objective"], rel=1e-3 if name == "lymphoma" else 1e-6)
    spearman, top = agreement(np.sqrt((W**2).sum(axis=1)), column(f"rufs_{name}"))
    assert spearman >= 0.99 and top >= 0.95


def test_local_learning_matrix_is_the_per_sample_kernel_ridge():
    """The batched, padded solve equals sample-by-sample K(i, N_i) (K(N_i, N_i) + r I)^-1 on the graph K."""
    X = np.random.default_rng(0).normal(size=(30, 4))
    n = X.shape[0]
    D2 = pairwise_sq_dists(X)
    K = knn_graph(X, 3, "heat", sigma=mean_distance(D2) * (n - 1) / n, D2=D2).toarray()
    A = np.zeros((n, n))
    for i in range(n):
        hood = np.flatnonzero(K[i])
        A[i, hood] = np.linalg.solve(K[np.ix_(hood, hood)] + 0.1 * np.eye(hood.size), K[i, hood])
    expected = (np.eye(n) - A).T @ (np.eye(n) - A)
    np.testing.assert_allclose(local_learning_matrix(X, 3, 0.1).toarray(), expected, rtol=1e-10, atol=1e-12)


def test_authors_f_gradient_keeps_stale_norms():
    """The code's F gradient divides by the residual norms of the block's start: off the gradient after a step."""
    rng = np.random.default_rng(1)
    X, G = rng.normal(size=(20, 6)), np.abs(rng.normal(size=(20, 3)))
    F0, F1 = np.abs(rng.normal(size=(3, 6))), np.abs(rng.normal(size=(3, 6)))
    blocks = _Blocks(X, np.zeros((20, 20)), 1.0, 1.0, "paper")
    step = np.zeros_like(F1)
    step[0, 0] = h = 1e-6
    numeric = (blocks.f_value(F1 + step, G) - blocks.f_value(F1 - step, G)) / (2 * h)
    assert blocks.f_grad(F1, G)[0, 0] == pytest.approx(numeric, rel=1e-6)
    stale = np.sqrt(((G @ F0 - X) ** 2).sum(axis=1))
    assert abs(blocks.f_grad(F1, G, stale)[0, 0] - numeric) > 1e-3 * abs(numeric)


@pytest.mark.parametrize(("params", "message"), [
    ({"n_clusters": 6}, r"n_clusters=6 must be at most n_samples - 1 = 5"),
    ({"n_neighbors": 6}, r"n_neighbors=6 must be at most n_samples - 1 = 5"),
])
def test_parameter_limits_are_named(params, message):
    with pytest.raises(ValueError, match=message):
        RUFS(**params).fit(np.random.default_rng(0).normal(size=(6, 4)))


@pytest.mark.parametrize("params", [{"nu": 0.0}, {"alpha": -1.0}, {"ridge": 0}, {"variant": "code"}, {"tol": 0}])
def test_bad_parameters_refused_before_fitting(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        RUFS(**params).fit(np.ones((4, 3)) + np.eye(4, 3))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_tiny_samples_and_a_constant_column(n):
    """At its defaults on 2-4 samples (k = n - 1: the code's all-neighbours kernel); the flat column ranks last."""
    X = np.random.default_rng(n).normal(size=(n, 6))
    X[:, 2] = 7.0
    est = RUFS(random_state=0).fit(X)
    assert est.scores_[2] == -np.inf and est.ranking_[2] == 6
    assert np.isfinite(est.scores_[np.arange(6) != 2]).all()
    assert est.n_clusters_ == min(5, n - 1) and est.W_.shape == (6, est.n_clusters_)


def test_seeded_and_unit_free():
    """The same seed gives the same ranking; X scaled by 8 (exact) gives the same ranking and W / 8."""
    X = make_planted(n_samples=40, n_informative=3, n_noise=6, random_state=2).X
    a = RUFS(random_state=3).fit(X)
    b = RUFS(random_state=3).fit(X)
    c = RUFS(random_state=3).fit(8.0 * X)
    np.testing.assert_array_equal(a.ranking_, b.ranking_)
    np.testing.assert_array_equal(a.ranking_, c.ranking_)
    np.testing.assert_allclose(c.W_, a.W_ / 8.0, rtol=1e-9, atol=1e-12)


def test_planted_misses_are_the_authors_code_s():
    """On the planted tests' data (seeds 0-4) the toolbox's code, from the start RUFS(random_state=0) takes
    (stored), ranks as ours does and finds 4, 4, 3, 3, 3 of the 5 planted features in its top 5, as ours."""
    theirs_all = np.loadtxt(FIXTURES / "rufs_planted.csv", delimiter=",", skiprows=1)
    starts = np.loadtxt(FIXTURES / "rufs_start_planted.csv", delimiter=",", skiprows=1, dtype=int)
    found = []
    for seed in range(5):
        data = make_planted(n_samples=60, n_informative=5, n_noise=40, random_state=seed)
        X = centred(data.X)  # z-scored: the class's scale s is 1
        labels = starts[:, seed]
        np.testing.assert_array_equal(kmeans_labels(X, 5, 0), labels)  # the stored start is the class's
        with single_threaded_blas():
            W = rufs_fit(X, local_learning_matrix(X, 5, 0.1), labels, 5, nu=1.0, alpha=1.0, beta=1.0, max_iter=21,
                         tol=1e-2, variant="authors")[0]
        ours, theirs = np.sqrt((W**2).sum(axis=1)), theirs_all[:, seed]
        assert agreement(ours, theirs)[0] >= 0.99
        top = [set(np.argsort(-s, kind="stable")[:5]) & set(data.informative) for s in (ours, theirs)]
        assert top[0] == top[1]
        found.append(len(top[0]))
        assert len(set(RUFS(random_state=0).fit(data.X).order_[:5]) & set(data.informative)) == found[-1]
    assert found == [4, 4, 3, 3, 3]
