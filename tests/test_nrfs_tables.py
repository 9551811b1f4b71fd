"""NRFS paper layer (ufskit.papers.nrfs): Table I runs, NJW, curves, tables, claims, figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ufskit.metrics import nmi
from ufskit.papers import nrfs as P

PUBLISHED = pd.DataFrame({"method": ["K-means", "NRFS"], "nmi_all_instances": [0.1571, 1.0],
                          "nmi_normal_instances": [0.2665, 1.0]})


def blobs(rng, centres, n=30, sd=0.3):
    X = np.vstack([rng.normal(c, sd, size=(n, len(c))) for c in centres])
    return X, np.repeat(np.arange(len(centres)), n)


# ---- clustering helpers -------------------------------------------------------------------------


def test_njw_recovers_separated_clusters_and_is_deterministic(rng):
    X, y = blobs(rng, [(0, 0), (6, 0), (0, 6)])
    a = P.njw_labels(X, 3, n_init=5, random_state=1)
    assert nmi(y, a) == pytest.approx(1.0)
    np.testing.assert_array_equal(a, P.njw_labels(X, 3, n_init=5, random_state=1))


def test_njw_separates_two_rings_where_kmeans_cannot(rng):
    t = rng.uniform(0, 2 * np.pi, 200)
    r = np.repeat([1.0, 4.0], 100)
    X = np.column_stack([r * np.cos(t), r * np.sin(t)]) + rng.normal(0, 0.05, (200, 2))
    y = np.repeat([0, 1], 100)
    assert nmi(y, P.njw_labels(X, 2, sigma=0.3, n_init=5, random_state=0)) == pytest.approx(1.0)
    from ufskit.metrics import kmeans_labels
    assert nmi(y, kmeans_labels(X, 2, n_init=5, random_state=0)) < 0.1


def test_njw_rejects_bad_cluster_counts(rng):
    X, _ = blobs(rng, [(0, 0)], n=5)
    with pytest.raises(ValueError, match="n_clusters"):
        P.njw_labels(X, 5, random_state=0)


def test_runs_per_rep_splits_the_runs_evenly():
    assert P.runs_per_rep(30, 1) == 30 and P.runs_per_rep(30, 30) == 1 and P.runs_per_rep(30, 5) == 6
    with pytest.raises(ValueError, match="evenly"):
        P.runs_per_rep(30, 4)


# ---- Table I --------------------------------------------------------------------------------------


def mislabelled_noise(rng):
    """Two clusters in f0 plus a noise feature; the noisy rows sit in cluster 0 but carry label 1."""
    X, y = blobs(rng, [(0, 0), (8, 0)], n=20)
    X[:, 1] = rng.uniform(-1, 1, X.shape[0])
    noisy = np.array([0, 1, 2, 3])
    y = y.copy()
    y[noisy] = 1
    return X, y, noisy


def test_table1_reference_scores_only_the_normal_instances(rng):
    X, y, noisy = mislabelled_noise(rng)
    runs = P.table1_runs(X, y, noisy, "K-means", count=1, total_runs=3, kmeans={"n_init": 2}, seed=0)
    assert len(runs) == 6 and set(runs["variant"]) == {"all", "normal"}
    # every run clusters perfectly; scored on all rows the mislabelled noise would lower NMI
    assert runs["nmi"].to_numpy() == pytest.approx(np.ones(6))
    assert nmi(y, (X[:, 0] > 4).astype(int)) < 0.8
    assert (runs["selected"] == "").all()


def test_table1_selector_uses_given_selections_and_refits_on_normal_rows(rng):
    X, y, noisy = mislabelled_noise(rng)
    spec = {"selector": "LaplacianScore", "params": {"n_neighbors": 5}}
    runs = P.table1_runs(X, y, noisy, "LS", count=1, spec=spec, selections=[np.array([1, 0])], total_runs=2,
                         kmeans={"n_init": 2}, seed=0)
    all_rows, normal_rows = runs[runs["variant"] == "all"], runs[runs["variant"] == "normal"]
    assert list(all_rows["selected"]) == ["1", "1"]  # the given (noise) feature, first of the selection
    assert list(normal_rows["selected"]) == ["0", "0"]  # LS refitted without the noisy rows picks the cluster feature
    assert normal_rows["nmi"].to_numpy() == pytest.approx([1.0, 1.0])
    assert all_rows["nmi"].max() < 0.5


def test_table1_runs_refuses_a_selector_without_selections(rng):
    X, y, noisy = mislabelled_noise(rng)
    with pytest.raises(ValueError, match="selection"):
        P.table1_runs(X, y, noisy, "LS", count=1, spec={"selector": "LaplacianScore", "params": {}},
                      selections=[], total_runs=2, kmeans={}, seed=0)


def table1_frame():
    rows = []
    for variant, values in (("all", [0.5, 0.7]), ("normal", [0.9, 1.0])):
        rows += [{"method": "K-means", "variant": variant, "run": i, "nmi": v, "selected": ""}
                 for i, v in enumerate(values)]
        rows += [{"method": "NRFS", "variant": variant, "run": i, "nmi": 1.0, "selected": s}
                 for i, s in enumerate(["0 1 2 3", "0 1 2 5"] if variant == "all" else ["0 1 2 3"] * 2)]
    return pd.DataFrame(rows)


def test_table1_means_shares_published_and_order():
    t = P.table1(table1_frame(), PUBLISHED)
    assert list(t["method"]) == ["K-means", "NRFS"]
    km, nr = t.iloc[0], t.iloc[1]
    assert km.nmi_all == pytest.approx(0.6) and km.nmi_normal == pytest.approx(0.95) and km.runs == 2
    assert km.published_nmi_all == 0.1571 and np.isnan(km.informative_share_all)
    assert nr.informative_share_all == 0.5 and nr.informative_share_normal == 1.0
    md = P.table1_markdown(t, 4)
    assert "| K-means | 0.6000 ± 0.141 | 0.1571 | 0.9500 ± 0.071 | 0.2665 | 2 | – | – |" in md


def test_table2_shows_the_published_numbers_beside():
    summaries = {"Leukemia2": {"n_samples": 72, "n_features": 11222, "n_classes": 3,
                               "preprocessing": [{"step": "log10"}, {"step": "quantile"}]},
                 "other": {"n_samples": 5, "n_features": 2, "n_classes": 2}}
    pub = pd.DataFrame({"dataset": ["Leukemia2"], "instances": [72], "features": [11225], "clusters": [3]})
    md = P.table2_markdown(summaries, pub)
    assert "| Leukemia2 | 72 (72) | 11222 (11225) | 3 (3) | log10, quantile |" in md
    assert "| other | 5 | 2 | 2 | none |" in md


# ---- curves -------------------------------------------------------------------------------------


EXPERIMENTS = {
    "base": {"methods": {"MCFS": {"selector": "MCFS", "params": {"n_clusters": 4},
                                  "grid": {"max_nonzero": [200, 1800]}},
                         "LS": {"selector": "LaplacianScore"}}},
    "nrfs": {"methods": {"NRFS": {"selector": "NRFS", "grid": {"n_neighbors_features": [30, 50]}}}},
}


def metrics_frame():
    """A hand-made metrics.parquet: MCFS at two cardinalities, NRFS at q 30/50 (2 reps), LS; two counts."""
    rows = []

    def add(exp, method, slug, rep, count, metric, value):
        rows.append({"experiment": exp, "dataset": "D", "method": method, "params": slug, "rep": rep,
                     "n_features": count, "metric": metric, "value": value})

    for count in (200, 1000):
        add("base", "MCFS", "max_nonzero=200_n_clusters=4", 0, count, "kmeans_nmi", 0.2 + count / 1e4)
        add("base", "MCFS", "max_nonzero=1800_n_clusters=4", 0, count, "kmeans_nmi", 0.5 + count / 1e4)
        add("base", "LS", "default", 0, count, "kmeans_nmi", 0.1)
        for rep, v in enumerate((0.6, 0.8)):
            add("nrfs", "NRFS", "n_neighbors_features=50", rep, count, "kmeans_nmi", v)
            add("nrfs", "NRFS", "n_neighbors_features=30", rep, count, "kmeans_nmi", v - 0.1)
    add("base", "MCFS", "max_nonzero=200_n_clusters=4", 0, None, "fit_seconds", 2.0)
    add("base", "MCFS", "max_nonzero=1800_n_clusters=4", 0, None, "fit_seconds", 4.0)
    add("nrfs", "NRFS", "n_neighbors_features=50", 0, None, "fit_seconds", 10.0)
    add("nrfs", "NRFS", "n_neighbors_features=50", 1, None, "fit_seconds", 20.0)
    add("nrfs", "NRFS", "n_neighbors_features=30", 0, None, "fit_seconds", 99.0)
    return pd.DataFrame(rows)


def test_param_columns_reads_q_and_cardinality_from_the_config():
    t = P.param_columns(EXPERIMENTS)
    assert len(t) == 5
    row = t[(t["method"] == "NRFS") & (t["params"] == "n_neighbors_features=30")].iloc[0]
    assert row.q == 30 and np.isnan(row.max_nonzero)


def test_nmi_curves_take_q50_and_mcfs_at_min_m_n():
    curves = P.nmi_curves(metrics_frame(), P.param_columns(EXPERIMENTS), {"D": 800}).set_index(["method", "n_features"])
    # M = 200 < n: the 200-non-zero run; M = 1000 > n = 800: the run whose cardinality reaches n
    assert curves.loc[("MCFS", 200), "nmi"] == pytest.approx(0.22)
    assert curves.loc[("MCFS", 1000), "nmi"] == pytest.approx(0.6)
    assert curves.loc[("NRFS", 200), "nmi"] == pytest.approx(0.7) and curves.loc[("NRFS", 200), "runs"] == 2
    assert curves.loc[("LS", 1000), "nmi"] == pytest.approx(0.1)


def test_nmi_curves_refuse_a_missing_mcfs_cardinality():
    with pytest.raises(ValueError, match="min"):
        P.nmi_curves(metrics_frame(), P.param_columns(EXPERIMENTS), {"D": 5000})


def test_q_curves_and_fit_times():
    params = P.param_columns(EXPERIMENTS)
    q = P.q_curves(metrics_frame(), params)
    assert sorted(q["q"].unique()) == [30, 50]
    assert q.query("q == 30 and n_features == 200")["nmi"].item() == pytest.approx(0.6)
    times = P.fit_times(metrics_frame(), params).set_index("method")["seconds"]
    assert times["NRFS"] == pytest.approx(15.0) and times["MCFS"] == pytest.approx(3.0)


# ---- claims -------------------------------------------------------------------------------------


def test_claim_table1_verdicts():
    t = P.table1(table1_frame(), PUBLISHED)
    verdict, text = P.claim_table1(t)
    assert verdict == "does not hold" and "50%" in text  # NRFS missed f1-f4 once
    good = table1_frame()
    good["selected"] = good["selected"].where(good["selected"] == "", "0 1 2 3")
    good.loc[good["method"] == "K-means", "nmi"] = 0.3
    assert P.claim_table1(P.table1(good, PUBLISHED))[0] == "holds"
    good.loc[good["method"] == "K-means", "nmi"] = 0.9
    assert P.claim_table1(P.table1(good, PUBLISHED))[0] == "partly holds"


def test_claim_sampling_counts_noisy_instances():
    verdict, text = P.claim_sampling(noisy=np.arange(10), removed=np.arange(12), representatives=np.arange(20, 120))
    assert verdict == "holds" and "10 of the 10" in text
    assert P.claim_sampling(np.arange(10), np.arange(50, 62), np.arange(0, 100))[0] == "does not hold"


def test_claim_fig5_margins():
    curves = pd.DataFrame({"dataset": ["A"] * 3 + ["T"] * 3, "method": ["NRFS", "MCFS", "LS"] * 2,
                           "n_features": 200, "nmi": [0.6, 0.5, 0.4, 0.3, 0.2, 0.1]})
    kmeans_all = pd.DataFrame({"dataset": ["A", "T"], "nmi": [0.4, 0.1]})
    verdict, text = P.claim_fig5(curves, kmeans_all, {"A": "microarray", "T": "text"})
    assert verdict == "holds" and "+20.0%" in text and "+50.0%" in text and "+200.0%" in text
    curves.loc[1, "nmi"] = 0.7
    assert P.claim_fig5(curves, kmeans_all, {"A": "microarray", "T": "text"})[0] == "partly holds"


def test_claim_fig6_and_fig7():
    q = pd.DataFrame({"dataset": "D", "q": [30, 50, 30, 50], "n_features": [1, 1, 2, 2], "nmi": [0.5, 0.52, 0.5, 0.5]})
    assert P.claim_fig6(q)[0] == "holds"
    q.loc[0, "nmi"] = 0.3
    assert P.claim_fig6(q)[0] == "does not hold"
    times = pd.DataFrame({"dataset": "D", "method": ["NRFS", "NRFS-2", "MCFS", "NDFS"], "seconds": [10, 20, 8, 30]})
    verdict, text = P.claim_fig7(times)
    assert verdict == "holds" and "2.00" in text
    times.loc[3, "seconds"] = 5
    assert P.claim_fig7(times)[0] == "partly holds"
    assert P.claim_fig7(times[times["method"] != "NDFS"])[0] == "not run"


def test_claims_markdown_lists_every_claim():
    md = P.claims_markdown([("claim A", "holds", "numbers"), ("claim B", "does not hold", "more")])
    assert md.count("## ") == 2 and "**Verdict: does not hold.**" in md


# ---- figures ------------------------------------------------------------------------------------


def test_figures_have_one_titled_panel_per_dataset_and_a_legend():
    curves = pd.DataFrame({"dataset": ["A", "A", "T", "T"], "method": ["NRFS", "LS"] * 2, "n_features": 200,
                           "nmi": [0.5, 0.4, 0.3, 0.2]})
    fig = P.figure5(curves, pd.DataFrame({"dataset": ["A"], "nmi": [0.3]}), {"A": "microarray", "T": "text"})
    assert [ax.get_title() for ax in fig.axes] == ["microarray: A", "text: T"]
    assert fig.legends and "K-means (all features)" in [t.get_text() for t in fig.legends[0].get_texts()]
    times = pd.DataFrame({"dataset": "A", "method": ["NRFS", "NDFS", "LS"], "seconds": [1.0, 3.0, 0.1]})
    ax = P.figure7(times, {}).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["LS", "NRFS-1", "NDFS"]
    X = np.random.default_rng(0).uniform(size=(20, 6))
    fig4 = P.figure4(X, np.repeat([0, 1], 10), np.array([0, 1]), np.arange(5, 10), np.array([0, 3]))
    assert "1 of the 2 noisy" in fig4.get_suptitle().replace("\n", " ")
