"""NRFS: the paper's synthetic result, the cube algebra, the round-robin per-spectrum order, bad input."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest
import scipy.io
from numpy.testing import assert_allclose, assert_array_equal
from selector_checks import assert_deterministic, make_planted, run_check_estimator

from conftest import ROOT
from ufskit.data import Dataset
from ufskit.graph import pairwise_sq_dists
from ufskit.preprocess import apply_chain
from ufskit.selectors import nrfs as nrfs_module
from ufskit.selectors import nrfs_hubs
from ufskit.selectors.nrfs import (
    NRFS,
    _LocalSimilarity,
    distinct_subspaces,
    feature_neighbors,
    global_spectra,
    normalized_abs,
    ridge_coefficients,
    round_robin_order,
)
from ufskit.synthetic import nrfs_synthetic

# the paper's setting for its Fig. 1 data: c = 4 clusters, q = 1 (Sec. V-A), the rest default
PAPER_SYNTHETIC = {"n_clusters": 4, "n_neighbors_features": 1}


@pytest.fixture(scope="module")
def synthetic():
    return [nrfs_synthetic(random_state=seed) for seed in range(3)]


def test_finds_the_four_informative_features_of_the_synthetic_data(synthetic):
    """Sec. V-A: NRFS "always" picks f1, f2, f3, f4 (here: every data seed and DPS fold tried)."""
    for seed, ds in enumerate(synthetic):
        est = NRFS(**PAPER_SYNTHETIC, random_state=seed).fit(ds.X)
        chosen = est.order_[:4]
        assert set(chosen) == {0, 1, 2, 3}, f"data seed {seed}, fold {est.fold_}: chose {chosen}"
        assert est.noisy_.size == 128 and np.intersect1d(est.noisy_, est.representatives_).size == 0
        assert abs(est.representatives_.size - 1152 / 4) <= 1  # p = 0.9 n / 4 = 288 as in the paper


def test_synthetic_without_sampling_uses_every_kept_instance(synthetic):
    est = NRFS(**PAPER_SYNTHETIC, sampling=False).fit(synthetic[0].X)
    assert est.fold_ is None
    assert_array_equal(est.representatives_, np.setdiff1d(np.arange(1280), est.noisy_))
    assert set(est.order_[:4]) == {0, 1, 2, 3}


def test_round_robin_order_by_hand():
    coef = np.array([[0.9, 0.8], [0.5, 0.95], [0.7, 0.1], [0.1, 0.6], [0.3, 0.2]])
    # spectrum 0 takes 0, spectrum 1 takes 1, spectrum 0 its next free (2), spectrum 1 its next free (3), ...
    assert_array_equal(round_robin_order(coef), [0, 1, 2, 3, 4])
    # feature 0 is best for both spectra: the second spectrum takes its best *other* feature
    clash = np.array([[0.9, 0.9], [0.8, 0.1], [0.1, 0.2]])
    assert_array_equal(round_robin_order(clash), [0, 2, 1])
    # ties go to the lower index
    assert_array_equal(round_robin_order(np.zeros((4, 3))), [0, 1, 2, 3])


def test_every_prefix_has_the_papers_quotas_and_is_the_selection(rng):
    """For every h: h // c features per spectrum (the first h mod c spectra one more), each its best
    still free when its turn comes; ranking_ <= h is exactly get_support/transform at h."""
    X = rng.standard_normal((40, 23))
    est = NRFS(n_clusters=3, n_neighbors_features=3, random_state=0).fit(X)
    order = est.order_
    assert_array_equal(order, round_robin_order(est.coef_))
    for t, feature in enumerate(order):  # turn t: spectrum t mod 3 takes its best feature not yet taken
        free = np.setdiff1d(np.arange(23), order[:t])
        assert feature == free[np.argmax(est.coef_[free, t % 3])]
    for h in range(1, 24):
        sel = est.set_params(n_features_to_select=h)
        assert_array_equal(sel.get_support(indices=True), np.sort(order[:h]))
        assert_array_equal(np.flatnonzero(est.ranking_ <= h), np.sort(order[:h]))
        assert_array_equal(sel.transform(X), X[:, np.sort(order[:h])])


def test_ridge_dual_and_primal_forms_equal_the_direct_solution(rng):
    """Eq. 8 with the intercept column, solved directly in the (m + 1) x (m + 1) normal equations."""
    Y = rng.standard_normal((6, 3))
    for m in (11, 3):  # m + 1 > n: dual n x n form; m + 1 <= n: primal form
        Bt = rng.random((2, m, 6))
        got = ridge_coefficients(Bt, Y, 0.3)
        for i in range(2):
            B1 = np.hstack([Bt[i].T, np.ones((6, 1))])
            direct = np.linalg.solve(B1.T @ B1 + 0.3 * np.eye(m + 1), B1.T @ Y)
            assert_allclose(got[i], direct[:m], rtol=1e-9, atol=1e-12)


def test_one_column_scaled_by_sqrt_k_stands_for_k_identical_ones(rng):
    """The ridge problem with k identical columns: their coefficient is the scaled column's divided by sqrt(k)."""
    Y = rng.standard_normal((6, 3))
    counts = np.array([3, 1, 2])
    for m in (3, 2):  # 6 features > n: dual form; 3 features + intercept <= n: primal form
        distinct = rng.random((2, m, 6))
        index = np.repeat(np.arange(m), counts[:m])
        full = ridge_coefficients(distinct[:, index], Y, 0.3)
        root = np.sqrt(counts[:m])[:, None]
        scaled = ridge_coefficients(distinct * root, Y, 0.3) / root
        assert_allclose(scaled[:, index], full, rtol=1e-10, atol=1e-13)


def test_distinct_subspaces_group_features_with_the_same_feature_set():
    neighbors = np.array([[0, 1, 2], [1, 0, 2], [2, 3, 0], [3, 2, 0], [4, 0, 1]])
    sets, index, counts = distinct_subspaces(neighbors)
    assert_array_equal(sets[index], np.sort(neighbors, axis=1))
    assert index[0] == index[1] and index[2] == index[3] and len(set(index)) == 3
    assert_array_equal(counts, np.bincount(index))


def text_like(seed, n=40, m=150):
    """tf-idf-like rows: ~5 % of words, two words in every document (in nearly every subspace, as on the
    NRFS text sets), ten words of one document each (subspaces that repeat), unit rows."""
    r = np.random.default_rng(seed)
    X = r.random((n, m)) * (r.random((n, m)) < 0.05)
    X[:, :2] = r.random((n, 2)) + 0.1
    X[:, -10:] = 0.0
    X[np.arange(10), m - 10 + np.arange(10)] = 0.5
    X = X[:, X.any(axis=0)]
    return X / np.linalg.norm(X, axis=1, keepdims=True)


# tests/data/nrfs_pinned.json: coef_ and order_ of the kernel before the speed-up (commit cd8f674); cosine_primal
# pinned again when negative cosine weights became 0 (ufskit.graph.knn_graph; its standard-normal rows have
# negative cosines, which W = max(W, W') had kept on mutual edges; coef_ moved by up to 5.4e-3, order_ the same)
PINNED = {
    "cosine_fold": (text_like, {"similarity": "cosine", "n_neighbors_features": 8, "fold": 1}),
    "cosine_all": (text_like, {"similarity": "cosine", "n_neighbors_features": 8, "sampling": False}),
    "gaussian_fold": (text_like, {"n_neighbors_features": 8, "fold": 2}),
    "gaussian_primal": (lambda s: np.random.default_rng(s).standard_normal((40, 12)),
                        {"n_neighbors_features": 12, "sampling": False}),
    "cosine_primal": (lambda s: np.random.default_rng(s).standard_normal((40, 12)),
                      {"similarity": "cosine", "n_neighbors_features": 5, "sampling": False}),
}


def assert_round_robin_within(order, coef, tol):
    """order is a round-robin of ``coef`` (each turn's spectrum takes a free feature) up to ties within ``tol``."""
    coef = np.asarray(coef)
    free = np.ones(coef.shape[0], dtype=bool)
    for turn, feature in enumerate(order):
        k = turn % coef.shape[1]
        assert free[feature] and coef[feature, k] >= coef[free, k].max() - tol, f"turn {turn}"
        free[feature] = False


@pytest.mark.parametrize("case", sorted(PINNED))
def test_same_numbers_as_the_kernel_before_the_speed_up(case):
    """coef_ within 1e-9 of the previous kernel's and the same order, except among features whose coefficients
    tie within rounding (the same subspace, or subspaces equal on the data: equal in exact arithmetic, which
    each kernel's rounding orders its own way)."""
    pinned = json.loads((ROOT / "tests" / "data" / "nrfs_pinned.json").read_text())[case]
    make, params = PINNED[case]
    est = NRFS(n_clusters=3, n_neighbors=5, **params).fit(make(7))
    assert_allclose(est.coef_, pinned["coef"], rtol=0, atol=1e-9)
    assert_round_robin_within(est.order_, pinned["coef"], tol=1e-9)
    if case in ("gaussian_fold", "cosine_primal"):  # no tie but round-off ones (snapped) reaches the order there
        assert_array_equal(est.order_, round_robin_order(np.asarray(pinned["coef"])))


def test_hub_terms_give_the_direct_dual_solution(monkeypatch):
    """nrfs_hubs assembles each cosine layer's Gram matrix from per-pattern terms: the same minimiser."""
    monkeypatch.setattr(nrfs_hubs, "MIN_ROWS", 4)  # the test data are small: keep small patterns as terms
    X = text_like(3)
    reps = np.arange(0, 40, 3)
    cube = _LocalSimilarity(X, feature_neighbors(X, 8), "cosine", reps, n_nearest=3)
    hubs = nrfs_hubs.HubGram(cube)
    assert hubs.hubs.size >= 2 and len(hubs.terms) >= 2  # words in most subspaces, several patterns
    Y = np.linalg.qr(np.random.default_rng(1).standard_normal((40, 3)))[0]
    for i in reps:
        direct = ridge_coefficients(cube.layers(np.array([i])), Y, 1e-3)[0]
        assert_allclose(hubs.coefficients(i, Y, 1e-3), direct, rtol=1e-9, atol=1e-12 * np.abs(direct).max())


def test_normalized_abs_is_eq9():
    A = np.array([[[3.0, 0.0], [-4.0, 0.0]]])  # one layer, 2 features, 2 spectra (second all zero)
    assert_allclose(normalized_abs(A), [[[0.6, 0.0], [0.8, 0.0]]])


def test_local_similarity_layers_by_brute_force(rng):
    X = rng.standard_normal((9, 5))
    neighbors = feature_neighbors(X, 2)
    reps = np.array([2, 7])
    for similarity in ("gaussian", "cosine"):
        cube = _LocalSimilarity(X, neighbors, similarity, reps, n_nearest=3)
        layers = (cube.layers(reps) / cube.root[:, None])[:, cube.index]  # one row per distinct subspace
        for b, i in enumerate(reps):
            for j in range(5):
                sub = X[:, neighbors[j]]
                if similarity == "gaussian":
                    dist = np.linalg.norm(sub[:, None, :] - sub[None, :, :], axis=2)
                    sigma = np.mean([np.sort(np.delete(dist[r], r))[:3].mean() for r in reps])
                    expected = np.exp(-dist[i] ** 2 / (2 * sigma**2))
                else:
                    expected = sub @ sub[i] / (np.linalg.norm(sub, axis=1) * np.linalg.norm(sub[i]))
                assert_allclose(layers[b, j], expected, rtol=1e-10)


def test_cosine_layers_on_mostly_zero_data_by_brute_force(rng):
    # text-like: ~15 % non-zero, so most subspaces of a representative share no word with it
    # (similarity 0) and some instances are all zero within a subspace (0/0 -> 0)
    X = rng.random((10, 12)) * (rng.random((10, 12)) < 0.15)
    X[3] = 0.0
    X[3, 5] = 1.0  # a representative with a single word
    neighbors = feature_neighbors(X, 3)
    reps = np.array([3, 8])
    cube = _LocalSimilarity(X, neighbors, "cosine", reps, n_nearest=3)
    layers = (cube.layers(reps) / cube.root[:, None])[:, cube.index]
    for b, i in enumerate(reps):
        for j in range(12):
            sub = X[:, neighbors[j]]
            den = np.linalg.norm(sub, axis=1) * np.linalg.norm(sub[i])
            expected = np.divide(sub @ sub[i], den, out=np.zeros(10), where=den > 0)
            assert_allclose(layers[b, j], expected, rtol=1e-12, atol=0)
    assert (layers == 0).mean() > 0.5


def test_feature_neighbors_match_a_full_sort(rng, monkeypatch):
    X = rng.standard_normal((12, 30))
    X[:, 7] = X[:, 3]  # a duplicate: at distance 0 it must still come after the feature itself
    monkeypatch.setattr(nrfs_module, "BLOCK_BYTES", 8 * 30 * 4)  # blocks of 4 features
    got = feature_neighbors(X, 4)
    D = np.linalg.norm(X.T[:, None, :] - X.T[None, :, :], axis=2)
    np.fill_diagonal(D, -1.0)
    assert_array_equal(got, np.argsort(D, axis=1, kind="stable")[:, :4])
    assert got[3, 0] == 3 and got[3, 1] == 7 and got[7, 1] == 3


def test_global_spectra_solve_the_normalised_laplacian(rng):
    X = rng.standard_normal((30, 4))
    W = np.exp(-pairwise_sq_dists(X) / 4.0)
    E, Y = global_spectra(W, 3)
    d = W.sum(axis=1)
    L_sym = np.eye(30) - W / np.sqrt(np.outer(d, d))
    assert_allclose(L_sym @ Y, Y * E, atol=1e-10)
    assert_allclose(E, np.linalg.eigvalsh(L_sym)[:3], atol=1e-10)
    assert_allclose(np.abs(Y[:, 0]), np.sqrt(d / d.sum()), atol=1e-10)  # the aperiodic first spectrum


def test_global_spectra_without_the_trivial_one_are_the_next_c(rng):
    X = rng.standard_normal((30, 4))
    W = np.exp(-pairwise_sq_dists(X) / 4.0)
    E4, Y4 = global_spectra(W, 4)
    E, Y = global_spectra(W, 3, trivial=False)
    assert_allclose(E, E4[1:], atol=1e-10)
    assert_allclose(np.abs(Y.T @ Y4[:, 1:]), np.eye(3), atol=1e-8)  # the same vectors up to sign
    assert E[0] > 1e-6  # D^1/2 1 (eigenvalue 0) is gone


def test_trivial_spectrum_false_drops_d_half_one_from_the_embedding(synthetic):
    X = synthetic[0].X
    keep = NRFS(**PAPER_SYNTHETIC, random_state=0).fit(X)
    drop = NRFS(**PAPER_SYNTHETIC, random_state=0, trivial_spectrum=False).fit(X)
    assert keep.eigenvalues_[0] == pytest.approx(0.0, abs=1e-8) and drop.eigenvalues_[0] > 1e-8
    assert_allclose(drop.eigenvalues_[:3], keep.eigenvalues_[1:], rtol=1e-6, atol=1e-10)
    assert drop.embedding_.shape == keep.embedding_.shape == (1280, 4)
    assert drop.fold_ == keep.fold_  # the same representatives: only the spectra differ
    with pytest.raises(ValueError, match="trivial_spectrum"):
        NRFS(n_clusters=2, n_neighbors_features=2, trivial_spectrum="no").fit(X[:20, :8])
    with pytest.raises(ValueError, match="when trivial_spectrum=False"):
        NRFS(n_clusters=19, n_neighbors_features=2, n_neighbors=None, noise_fraction=0.0, sampling=False,
             trivial_spectrum=False).fit(X[:20, :8])


def test_deterministic_and_scale_invariant(rng):
    X = rng.standard_normal((50, 12)) + np.repeat(np.eye(3, 12) * 4, [17, 17, 16], axis=0)
    est = NRFS(n_clusters=3, n_neighbors_features=2, random_state=3)
    assert_deterministic(est, X)
    a = est.fit(X)
    coef, reps = a.coef_.copy(), a.representatives_.copy()
    b = NRFS(n_clusters=3, n_neighbors_features=2, random_state=3).fit(10.0 * X)
    assert_array_equal(b.representatives_, reps)
    assert_allclose(b.coef_, coef, rtol=1e-6, atol=1e-9)


def test_random_state_only_draws_the_fold(rng):
    X = rng.standard_normal((60, 8))
    folds = {NRFS(n_clusters=2, n_neighbors_features=2, random_state=s).fit(X).fold_ for s in range(12)}
    assert folds == {0, 1, 2, 3}
    gen = NRFS(n_clusters=2, n_neighbors_features=2, random_state=np.random.default_rng(5)).fit(X)
    assert gen.fold_ in folds


def test_a_fixed_fold_equals_the_run_whose_draw_picked_it(rng):
    X = rng.standard_normal((60, 8))
    drawn = {NRFS(n_clusters=2, n_neighbors_features=2, random_state=s).fit(X): None for s in range(12)}
    for est in drawn:
        fixed = NRFS(n_clusters=2, n_neighbors_features=2, fold=est.fold_, random_state=999).fit(X)
        assert fixed.fold_ == est.fold_
        assert_array_equal(fixed.representatives_, est.representatives_)
        assert_array_equal(fixed.coef_, est.coef_)
    with pytest.raises(ValueError, match="fold must be an integer in \\[0, 3\\]"):
        NRFS(n_clusters=2, n_neighbors_features=2, fold=4).fit(X)


def test_passes_sklearn_estimator_checks():
    run_check_estimator(NRFS(n_clusters=2, n_neighbors_features=1, random_state=0))


def test_default_instance_passes_sklearn_estimator_checks():
    run_check_estimator(NRFS(random_state=0))


def test_auto_defaults_resolve_to_the_data_size(rng):
    """"auto" = the paper's values (c = 5, k = 5, 2 DPS levels) where the data allows them; q = 50 from
    m = 2000 features on (the paper's microarrays and texts), 1 below m = 80 (its synthetic data)."""
    from sklearn.datasets import load_wine

    est = NRFS(n_features_to_select=5, random_state=0).fit(load_wine().data)
    assert (est.n_clusters_, est.n_neighbors_features_, est.n_neighbors_, est.dps_levels_) == (5, 1, 5, 2)
    assert est.get_support().sum() == 5 and est.feature_neighbors_.shape == (13, 1)
    assert NRFS(random_state=0).fit(rng.standard_normal((30, 400))).n_neighbors_features_ == 10
    big = NRFS(random_state=0).fit(rng.standard_normal((30, 2000)))
    assert (big.n_clusters_, big.n_neighbors_features_, big.n_neighbors_, big.dps_levels_) == (5, 50, 5, 2)
    for n in (2, 3, 4):  # c, k <= n - 1 and one instance per DPS fold at least
        tiny = NRFS(random_state=0).fit(rng.standard_normal((n, 3)))
        assert tiny.n_clusters_ == tiny.n_neighbors_ == min(5, n - 1)
        assert 2**tiny.dps_levels_ <= n and sorted(tiny.ranking_) == [1, 2, 3]


def test_default_q_keeps_the_layers_apart_on_few_features():
    """With q near m every subspace is nearly the whole space: the layers, hence the coefficients, tie
    and the ranking is column order. The default q keeps them distinct on 45 features."""
    X = make_planted(n_samples=60, n_informative=5, n_noise=40, random_state=0).X
    default = NRFS(random_state=0).fit(X)
    whole = NRFS(n_neighbors_features=45, random_state=0).fit(X)
    distinct = [min(np.unique(np.round(coef, 12)).size for coef in est.coef_.T) for est in (default, whole)]
    assert distinct[0] == 45 and distinct[1] < 15, distinct


def test_constant_column_is_ranked_last_and_kept_out_of_the_subspaces(rng):
    X = rng.standard_normal((30, 6))
    X[:, 2] = 7.0
    est = NRFS(n_clusters=2, n_neighbors_features=3, random_state=0).fit(X)
    assert est.ranking_[2] == 6 and np.isneginf(est.scores_[2])
    assert (est.feature_neighbors_[2] == -1).all() and not (est.feature_neighbors_[[0, 1, 3, 4, 5]] == 2).any()
    assert (est.coef_[2] == 0).all()
    rest = NRFS(n_clusters=2, n_neighbors_features=3, random_state=0).fit(np.delete(X, 2, axis=1))
    assert_allclose(np.delete(est.coef_, 2, axis=0), rest.coef_, rtol=1e-10)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_neighbors_features": 9}, "exceeds the number of features"),
        ({"n_clusters": 20}, "must be below n_samples"),
        ({"similarity": "euclid"}, "similarity. parameter of NRFS"),
        ({"noise_fraction": 1.0}, "noise_fraction"),
        ({"ridge": 0.0}, "ridge"),
        ({"sampling": "yes"}, "sampling"),
        ({"n_neighbors": 20}, "n_neighbors"),
        ({"dps_levels": 5}, "need at least 32 samples"),
    ],
)
def test_bad_parameters(rng, kwargs, match):
    X = rng.standard_normal((20, 8))
    params = {"n_clusters": 2, "n_neighbors_features": 2, **kwargs}
    with pytest.raises(ValueError, match=match):
        NRFS(**params).fit(X)


def test_bad_input_and_counts(rng):
    X = rng.standard_normal((20, 8))
    with pytest.raises(ValueError, match="outside"):
        NRFS(n_features_to_select=9, n_clusters=2, n_neighbors_features=2, random_state=0).fit(X)
    with pytest.raises(ValueError, match="n_clusters"):
        NRFS(n_clusters="many").fit(X)
    X[4, 4] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        NRFS(n_clusters=2, n_neighbors_features=2).fit(X)


def test_microarray_runs_in_n_x_n_memory(mirror):
    """Leukemia2 (72 x 11225) through the paper's preprocessing: no m x m (1 GB) array is ever held."""
    mat = scipy.io.loadmat(mirror / "microarray" / "Leukemia2.mat")
    ds = apply_chain(Dataset(np.asarray(mat["X"], dtype=float), np.ravel(mat["Y"])),
                     ["log10", "quantile", "double_center"])
    tracemalloc.start()
    try:
        est = NRFS(n_clusters=3, n_neighbors_features=50, random_state=0).fit(ds.X)  # the paper's q ("auto": 1 here)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 400 * 2**20, f"peak {peak / 2**20:.0f} MB"
    assert est.feature_neighbors_.shape == (11225, 50) and est.representatives_.size == 16
    assert sorted(est.ranking_) == list(range(1, 11226))
