"""The diagnostics of failing claims: NRFS's graph spectrum and oracle target, IVFS's agreement between seeds.

Their rules' outputs are checked on the papers' smoke runs (tests/test_nrfs_workflow.py, test_ivfs_workflow.py).
"""


import numpy as np
import pandas as pd
import pytest

from ufskit.papers.ivfs import diagnostics as ivfs_diag
from ufskit.papers.nrfs import diagnostics as diag
from ufskit.selectors.nrfs import NRFS, global_spectra
from ufskit.synthetic import nrfs_synthetic

NRFS_SPEC = {"selector": "NRFS", "params": {"n_clusters": "n_classes", "n_neighbors_features": 1, "n_neighbors": 5,
                                            "dps_levels": 2}}


def two_cliques(size: int = 5, link: float = 0.01) -> np.ndarray:
    """Two cliques joined by weak edges between all their members: a regular graph whose second eigenvector of
    L_sym is the (centred) cluster indicator exactly."""
    W = np.full((2 * size, 2 * size), link)
    W[:size, :size] = W[size:, size:] = 1.0
    np.fill_diagonal(W, 0.0)
    return W


def test_second_eigenvector_of_two_cliques_is_fully_explained_by_the_clusters():
    y = np.repeat([0, 1], 5)
    values, V = global_spectra(two_cliques(), 3)
    r2 = diag.cluster_r2(V, y)
    assert values[0] == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(r2[0])  # the trivial D^1/2 1 is constant on a regular graph: nothing to explain
    assert r2[1] == pytest.approx(1.0, abs=1e-12)
    assert r2[2] == pytest.approx(0.0, abs=1e-12)  # a within-clique vector: its cluster means are 0


def test_cluster_r2_by_hand():
    y = np.array([0, 0, 1, 1])
    V = np.array([[1.0, 1.0], [3.0, 1.0], [5.0, 3.0], [7.0, 3.0]])
    # column 0: cluster means 2 and 6, total SS 20, within SS 4 -> 0.8; column 1: piecewise constant -> 1
    np.testing.assert_allclose(diag.cluster_r2(V, y), [0.8, 1.0])
    noise = np.random.default_rng(0).normal(size=(4000, 3))
    assert np.all(diag.cluster_r2(noise, np.arange(4000) % 4) < 0.01)


def test_cluster_indicators_are_orthonormal():
    F = diag.cluster_indicators([2, 0, 2, 2, 1])
    np.testing.assert_allclose(F.T @ F, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(F[:, 2], [1 / np.sqrt(3), 0, 1 / np.sqrt(3), 1 / np.sqrt(3), 0])


@pytest.fixture(scope="module")
def calibrated():
    """A small instance of Table I's calibrated generator: noise features that drown the clusters' graph."""
    return nrfs_synthetic(40, 10, 14, noise_scale=388.4, cluster_spread=1.5, random_state=3)


def test_spectrum_table_marks_the_target_and_sees_the_clusters_on_the_informative_graph(calibrated):
    ds = calibrated
    table = diag.spectrum_table(ds.X, ds.y, [0, 1, 2, 3], NRFS_SPEC["params"], n_eigen=8)
    assert list(table.columns) == ["graph", "index", "eigenvalue", "cluster_r2", "in_target"]
    for _, g in table.groupby("graph"):
        assert g["in_target"].tolist() == [True] * 4 + [False] * 4
        assert (g["eigenvalue"].diff().dropna() >= -1e-12).all() and (g["eigenvalue"] >= 0).all()
    informative = table[table["graph"] == "informative only"].set_index("index")["cluster_r2"]
    assert informative.loc[[2, 3, 4]].min() > 0.9
    no_trivial = diag.spectrum_table(ds.X, ds.y, [0, 1, 2, 3], {"trivial_spectrum": False}, n_eigen=8)
    assert no_trivial.loc[no_trivial["in_target"], "index"].unique().tolist() == [2, 3, 4, 5]


def test_spectrum_figure_has_a_panel_per_dataset(calibrated):
    ds = calibrated
    table = diag.spectrum_table(ds.X, ds.y, [0, 1, 2, 3], NRFS_SPEC["params"], n_eigen=6)
    fig = diag.spectrum_figure(pd.concat([table.assign(dataset="a"), table.assign(dataset="b")]), protocol="smoke")
    assert [ax.get_title() for ax in fig.axes] == ["a", "b"]
    assert len(fig.legends[0].get_texts()) == 4  # per graph: NRFS's target and the next eigenvectors


def test_graph_spectrum_checks_its_size():
    with pytest.raises(ValueError, match="n_eigen=10 must be in"):
        diag.graph_spectrum(np.random.default_rng(0).normal(size=(10, 3)), 2, 10, n_neighbors=3)


def test_oracle_picks_the_informative_features_where_the_spectra_do_not(calibrated):
    ds = calibrated
    runs = diag.oracle_runs(ds.X, ds.y, [0, 1, 2, 3], NRFS_SPEC, count=4, seed=7)
    assert runs["fold"].tolist() == [0, 1, 2, 3]  # one run per DPS fold of 2 ** dps_levels
    assert (runs["n_informative"] == 4).all() and (runs["selected"] == "0 1 2 3").all()
    own = NRFS(n_clusters=4, n_neighbors_features=1, n_neighbors=5, dps_levels=2, fold=0).fit(ds.X)
    assert len(set(own.ranking_[:4]) & {0, 1, 2, 3}) < 4


def test_nrfs_target_replaces_the_spectra_and_is_checked(calibrated):
    X, y = calibrated.X, calibrated.y
    base = dict(n_clusters=4, n_neighbors_features=1, n_neighbors=5, dps_levels=2, fold=1)
    own = NRFS(**base).fit(X)
    same = NRFS(**base, target=own.embedding_.copy()).fit(X)
    np.testing.assert_array_equal(own.scores_, same.scores_)
    with pytest.raises(ValueError, match=r"target must be finite of shape \(n_samples, n_clusters\) = \(170, 4\)"):
        NRFS(**base, target=diag.cluster_indicators(y)[:, :3]).fit(X)


def test_spectra_runs_and_summary():
    table1 = pd.DataFrame({"variant": ["all", "all", "normal"], "run": [0, 1, 0],
                           "selected": ["0 1 2 3", "0 5 6 7", "0 1 2 3"]})
    own = diag.spectra_runs(table1, [0, 1, 2, 3]).assign(dataset="d")
    assert own["n_informative"].tolist() == [4, 1]
    oracle = pd.DataFrame({"target": "indicators", "run": [0], "fold": [0], "selected": ["0 1 2 3"],
                           "n_informative": [4], "dataset": "d"})
    summary = diag.oracle_summary(pd.concat([own, oracle], ignore_index=True), 4)
    assert summary[["target", "runs", "mean_informative", "all_informative_share"]].values.tolist() == [
        ["spectra", 2, 2.5, 0.5], ["indicators", 1, 4.0, 1.0]]
    assert "2.50 of 4" in diag.oracle_markdown(summary, 4, 4)


# ---- IVFS: agreement of the scores between seeds ----------------------------------------------------------------

IVFS_METHODS = {"IVFS-linf": {"selector": "IVFS", "params": {"loss": "linf", "subset_features": 0.3},
                              "grid": {"subset_samples": [0.1, 0.5], "n_subsets": [30, 10, 20]}}}
IVFS_PROTOCOL = {"fixed": {"IVFS-linf": {"n_subsets": 10, "subset_samples": 0.5}}}


def test_identical_scores_agree_fully_and_independent_ones_as_chance():
    order = np.arange(50)[::-1]
    same = ivfs_diag.pairwise_agreement([np.arange(50.0)] * 3, [order] * 3, top=10)
    assert same["pairs"] == 3 and same["spearman_mean"] == pytest.approx(1.0) and same["overlap_mean"] == 1.0
    assert same["overlap_chance"] == pytest.approx(0.2)
    rng = np.random.default_rng(0)
    scores = [rng.normal(size=20000) for _ in range(4)]
    orders = [np.argsort(-s) for s in scores]
    independent = ivfs_diag.pairwise_agreement(scores, orders, top=4000)
    assert abs(independent["spearman_mean"]) < 0.03
    assert independent["overlap_mean"] == pytest.approx(0.2, abs=0.02)  # two random 4000-subsets of 20000
    with pytest.raises(ValueError, match="at least 2"):
        ivfs_diag.pairwise_agreement(scores[:1], orders[:1], top=5)
    with pytest.raises(ValueError, match=r"top=0 must lie in \[1, 20000\]"):
        ivfs_diag.pairwise_agreement(scores, orders, top=0)


def test_fit_group_is_the_fixed_setting_at_the_largest_k():
    slug, params, ks = ivfs_diag.fit_group(IVFS_METHODS, IVFS_PROTOCOL, "IVFS-linf")
    assert params == {"loss": "linf", "subset_features": 0.3, "subset_samples": 0.5, "n_subsets": 30}
    assert ks == [10, 20, 30] and "n_subsets" not in slug and "0.5" in slug


def test_seed_agreement_per_k_is_one_for_a_repeated_seed_and_lower_for_others():
    X = np.random.default_rng(1).normal(size=(40, 60))
    _, params, ks = ivfs_diag.fit_group(IVFS_METHODS, IVFS_PROTOCOL, "IVFS-linf")
    same = ivfs_diag.seed_agreement(X, params, ks, [5, 5], n_classes=2, top=10)
    assert same["n_subsets"].tolist() == ks
    np.testing.assert_allclose(same[["spearman_mean", "overlap_mean"]].to_numpy(), 1.0)
    other = ivfs_diag.seed_agreement(X, params, ks, [5, 6, 7], n_classes=2, top=10)
    assert (other["pairs"] == 3).all() and (other["spearman_mean"] < 0.9).all()
    assert "| IVFS-linf | 30 | 3 |" in ivfs_diag.seed_markdown(other.assign(dataset="d", method="IVFS-linf"))
