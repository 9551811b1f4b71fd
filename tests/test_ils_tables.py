"""The ILS paper's own evaluations, tables, claims and figures (ufskit.papers.ils) on small hand-made inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ufskit.papers import ils
from ufskit.selectors import make_selector

# ---------------------------------------------------------------- protocol and sampling


def test_check_protocol_accepts_each_study_and_rejects_mistakes():
    assert ils.PAPER.roles == ils.ROLES == ("uci", "orl_clusters", "orl_train_size")  # the study is the role
    assert ils.check_protocol("uci", None) == "uci"
    assert ils.check_protocol("orl_clusters", {"cluster_counts": [5, 10]}) == "orl_clusters"
    assert ils.check_protocol("orl_train_size", {"train_per_class": [2], "n_splits": 3}) == "orl_train_size"
    for role, bad, match in [(None, None, "role must be one of"), ("fig9", None, "role must be one of"),
                             ("uci", {"reps": 2}, "keys"),
                             ("orl_clusters", {"study": "orl_clusters", "cluster_counts": [5]}, "keys"),
                             ("orl_clusters", {"cluster_counts": 5}, "list"),
                             ("orl_clusters", {"cluster_counts": [0]}, ">= 1"),
                             ("orl_train_size", {"train_per_class": [2], "n_splits": [3]}, "integer")]:
        with pytest.raises(ValueError, match=match):
            ils.check_protocol(role, bad)


def test_draw_classes_takes_every_sample_of_the_drawn_classes(rng):
    y = np.repeat(np.arange(8), 5)
    idx = ils.draw_classes(y, 3, np.random.default_rng(1))
    classes = np.unique(y[idx])
    assert classes.size == 3 and idx.size == 15
    np.testing.assert_array_equal(idx, np.flatnonzero(np.isin(y, classes)))
    np.testing.assert_array_equal(idx, ils.draw_classes(y, 3, np.random.default_rng(1)))
    with pytest.raises(ValueError, match="cannot draw"):
        ils.draw_classes(y, 9, rng)


def test_per_class_split_gives_n_train_per_class_and_the_rest_for_test(rng):
    y = np.array([0] * 4 + [1] * 6 + [2] * 5)
    rng.shuffle(y)
    train, test = ils.per_class_split(y, 3, np.random.default_rng(2))
    assert np.bincount(y[train]).tolist() == [3, 3, 3]
    assert np.bincount(y[test]).tolist() == [1, 3, 2]
    assert np.intersect1d(train, test).size == 0 and train.size + test.size == y.size
    other, _ = ils.per_class_split(y, 3, np.random.default_rng(3))
    assert not np.array_equal(train, other)  # the draw is random ...
    np.testing.assert_array_equal(train, ils.per_class_split(y, 3, np.random.default_rng(2))[0])  # ... and seeded
    with pytest.raises(ValueError, match="test sample"):
        ils.per_class_split(y, 4, rng)


def test_nn_accuracy_hand_case():
    X_train, y_train = np.array([[0.0], [10.0]]), np.array([0, 1])
    X_test, y_test = np.array([[1.0], [4.0], [6.0], [9.0]]), np.array([0, 1, 1, 1])
    assert ils.nn_accuracy(X_train, y_train, X_test, y_test) == 0.75  # 4.0 is nearer class 0


def test_selected_sets_use_variant_2_subsets_and_prefixes_otherwise(rng):
    X = rng.standard_normal((30, 12))
    counts = [2, 6, 12]
    v2 = ils.selected_sets(X, "IterativeLaplacianScore", {"variant": 2, "n_drop": 5}, counts, n_classes=2, seed=0)
    for c in counts:
        fresh = make_selector("IterativeLaplacianScore", variant=2, n_drop=5, n_features_to_select=c).fit(X)
        np.testing.assert_array_equal(v2[c], fresh.order_[:c])
    ls = ils.selected_sets(X, "LaplacianScore", {}, counts, n_classes=2, seed=0)
    order = make_selector("LaplacianScore").fit(X).order_
    for c in counts:
        np.testing.assert_array_equal(ls[c], order[:c])


# ---------------------------------------------------------------- the two ORL studies on planted data


def planted_faces(rng, people=6, per=6, informative=4, noise=30):
    """Blocks of people: a few features separate them, many others are pure noise."""
    y = np.repeat(np.arange(people), per)
    centres = 6 * rng.standard_normal((people, informative))
    X = np.hstack([centres[y] + 0.3 * rng.standard_normal((y.size, informative)),
                   rng.standard_normal((y.size, noise))])
    return X, y


METHODS = {"LS": {"selector": "LaplacianScore"},
           "IterativeLS-1": {"selector": "IterativeLaplacianScore", "params": {"variant": 1}, "grid": {"n_drop": [1, 5]}}}


def test_cluster_subsets_study_rows_and_planted_clusters(rng):
    X, y = planted_faces(rng)
    kwargs = dict(n_clusters=3, reps=2, counts=[4, 34], n_init=5, nmi_average="max", seed=7)
    frame = ils.cluster_subsets_study(X, y, METHODS, **kwargs)
    assert len(frame) == 2 * 3 * 2 * 2  # reps x settings x counts x metrics
    assert set(frame["params"]) == {"default", "n_drop=1_variant=1", "n_drop=5_variant=1"}
    assert frame["value"].between(0, 1).all()
    top = frame[(frame["n_features"] == 4) & (frame["method"] == "IterativeLS-1")]
    assert (top["value"] == 1.0).all()  # the 4 informative features separate the 3 drawn people
    pd.testing.assert_frame_equal(frame, ils.cluster_subsets_study(X, y, METHODS, **kwargs))


def test_train_size_study_rows_and_planted_accuracy(rng):
    X, y = planted_faces(rng)
    frame = ils.train_size_study(X, y, METHODS, n_train=2, n_splits=3, counts=[4, 34], seed=3)
    assert len(frame) == 3 * 3 * 2 and set(frame["metric"]) == {"nn_acc"}
    assert (frame.query("n_features == 4 and method == 'IterativeLS-1'")["value"] == 1.0).all()
    assert frame.query("n_features == 34")["value"].nunique() == 1  # all features: same split, same answer per split
    pd.testing.assert_frame_equal(frame, ils.train_size_study(X, y, METHODS, n_train=2, n_splits=3,
                                                              counts=[4, 34], seed=3))


# ---------------------------------------------------------------- tables and claims


def test_table1_reports_loaded_prepared_and_published():
    published = pd.DataFrame({"dataset": ["wine", "ionosphere"], "paper_name": ["Wine", "Ionosphere"],
                              "n": [178, 351], "d": [13, 34], "classes": [3, 2]})
    prepared = {"wine": {"n_samples": 178, "n_features": 13, "n_classes": 3, "preprocessing": [{"step": "drop_constant", "n_removed": 0}]},
                "ionosphere": {"n_samples": 351, "n_features": 33, "n_classes": 2,
                               "preprocessing": [{"step": "drop_constant", "n_removed": 1}]}}
    md = ils.table1(prepared, published)
    assert "| wine | Wine | 178 x 13, 3 | 178 x 13 | 0 | 178 x 13, 3 | yes |" in md
    assert "| ionosphere | Ionosphere | 351 x 34, 2 | 351 x 34 | 1 | 351 x 33, 2 | **no** |" in md
    with pytest.raises(ValueError, match="zoo"):
        ils.table1({"zoo": prepared["wine"]}, published)


def curves_frame(values: dict, dataset="toy", metric="cv1nn_acc"):
    """A summary frame: method -> accuracies at counts 1..len."""
    rows = [{"dataset": dataset, "method": m, "params": "default", "n_features": i + 1, "metric": metric, "mean": v}
            for m, vals in values.items() for i, v in enumerate(vals)]
    return pd.DataFrame(rows)


def test_variants_table_gaps_overlap_and_rank_agreement():
    curves = curves_frame({ils.ILS: [0.5, 0.6, 0.8, 0.9], ils.ILS2: [0.5, 0.7, 0.8, 0.9]})
    order1 = np.array([2, 0, 3, 1])
    subsets2 = {1: np.array([2]), 2: np.array([2, 3]), 3: np.array([2, 0, 3]), 4: np.array([0, 1, 2, 3])}
    row = ils.variants_table(curves, {"toy": (order1, subsets2)}).iloc[0]
    assert row["mean_abs_diff"] == pytest.approx(0.025) and row["max_abs_diff"] == pytest.approx(0.1)
    assert row["count_of_max"] == 2 and row["share_equal"] == 0.75
    assert row["mean_jaccard"] == pytest.approx((1 + 1 / 3 + 1 + 1) / 4)
    # memberships 0:2, 1:1, 2:4, 3:3 -> ranking 2, 3, 0, 1 vs order 2, 0, 3, 1
    assert row["spearman_orders"] == pytest.approx(0.8)
    nested = {c: order1[:c] for c in range(1, 5)}
    assert ils.variants_table(curves, {"toy": (order1, nested)}).iloc[0]["spearman_orders"] == pytest.approx(1.0)


def test_uci_claims_follow_the_curves():
    good = curves_frame({ils.ILS: [0.6, 0.7, 0.8, 0.8, 0.9, 0.9, 0.9], ils.LS: [0.5, 0.6, 0.7, 0.7, 0.8, 0.8, 0.9],
                         ils.VARIANCE: [0.4, 0.5, 0.6, 0.6, 0.7, 0.8, 0.9]})
    gaps = ils.uci_gaps(good, 5, 10)
    assert gaps.iloc[0]["share_ge_both"] == 1.0 and gaps.iloc[0]["counts"] == 6  # count 7 = d is left out
    assert gaps.iloc[0]["band_gap_ls"] == pytest.approx(0.1)
    always, band = ils.claim_uci(gaps, low=5, high=10, share=0.8, margin=0.01)
    assert always.startswith("**holds**") and band.startswith("**holds**")
    bad = good.assign(method=good["method"].replace({ils.ILS: ils.LS, ils.LS: ils.ILS}))
    always, band = ils.claim_uci(ils.uci_gaps(bad, 5, 10), low=5, high=10, share=0.8, margin=0.01)
    assert always.startswith("**does not hold**") and "-0.1000" in band


def test_claim_variants_verdicts():
    table = pd.DataFrame({"dataset": ["a", "b"], "mean_abs_diff": [0.002, 0.03], "max_abs_diff": [0.01, 0.08],
                          "mean_jaccard": [1.0, 0.9]})
    assert ils.claim_variants(table, tol=0.01).startswith("**partly holds**")
    assert ils.claim_variants(table, tol=0.05).startswith("**holds**")


def test_cluster_curves_and_their_claim():
    parts = [pd.DataFrame([{"n_clusters": 5, "rep": r, "method": m, "params": "default", "n_features": c,
                            "metric": "kmeans_acc", "value": v + 0.01 * r}
                           for m, v0 in ((ils.ILS, 0.8), (ils.LS, 0.6)) for c, v in ((100, v0), (500, v0 + 0.1))])
             for r in range(2)]
    summary = pd.DataFrame({"dataset": "ORL", "method": [ils.ILS, ils.LS] * 2, "params": "default",
                            "n_features": [100, 100, 500, 500], "metric": "kmeans_acc", "mean": [0.5, 0.4, 0.7, 0.6],
                            "std": np.nan, "reps": 1})
    curves = ils.cluster_curves(summary, parts, n_classes=40)
    assert sorted(curves["n_clusters"].unique()) == [5, 40]
    five = curves.query("n_clusters == 5 and method == @ils.LS and n_features == 100").iloc[0]
    assert five["mean"] == pytest.approx(0.605)
    text = ils.claim_orl_clusters(curves, below=400, margin=0.01)
    assert text.startswith("**holds**") and "c=5: above at 100% of counts, mean gap below 400 +0.2000, from 400 on +0.2000" in text
    with pytest.raises(ValueError, match="generic path"):
        ils.cluster_curves(summary, [p.assign(n_clusters=40) for p in parts], n_classes=40)


def test_claim_train_size_measures_the_spread_over_d():
    rows = [{"n_train": 2, "method": ils.ILS, "params": f"n_drop={d}_variant=1", "n_features": c, "metric": "nn_acc",
             "mean": 0.5 + (0.04 if d == 5 and c == 10 else 0.0)} for d in (1, 5) for c in (10, 20)]
    text = ils.claim_train_size(pd.DataFrame(rows), tol=0.025)
    assert "mean spread 0.0200, largest 0.0400 (at 10 features)" in text and text.startswith("**holds**")
    assert ils.claim_train_size(pd.DataFrame(rows), tol=0.01).startswith("**does not hold**")


def test_claims_report_has_every_claim():
    uci = curves_frame({ils.ILS: [0.6, 0.9], ils.ILS2: [0.6, 0.9], ils.LS: [0.5, 0.9], ils.VARIANCE: [0.5, 0.9]})
    uci = pd.concat([uci.assign(n_features=uci["n_features"] * 5)])
    variants = pd.DataFrame({"dataset": ["toy"], "mean_abs_diff": [0.0], "max_abs_diff": [0.0], "mean_jaccard": [1.0]})
    clusters = pd.DataFrame({"n_clusters": 5, "method": [ils.ILS, ils.LS], "params": "default", "n_features": 10,
                             "metric": "kmeans_acc", "mean": [0.7, 0.6]})
    train = pd.DataFrame({"n_train": 2, "method": ils.ILS, "params": ["n_drop=1", "n_drop=5"], "n_features": 10,
                          "metric": "nn_acc", "mean": [0.5, 0.5]})
    found = ils.claims(uci=uci, variants=variants, clusters=clusters, train_size=train)
    assert [c["id"] for c in found] == ["ILS/variants", "ILS/Fig1", "ILS/Fig1", "ILS/Fig2", "ILS/Fig3"]
    assert {c["verdict"] for c in found} <= {"holds", "partly holds", "does not hold"}
    md = ils.claims_report(found)
    assert md.count("\n## ") == 5 and md.count("**holds**") >= 3


# ---------------------------------------------------------------- figures


def test_figures_have_a_panel_per_dataset_size_and_a_legend():
    uci = pd.concat([curves_frame({m: [0.5, 0.6, 0.7] for m in ils.UCI_METHODS}, dataset=d) for d in ("a", "b", "c")])
    fig = ils.figure1(uci, {"a": "a (3 x 3)"}, n_folds=10, n_repeats=10)
    assert len(fig.axes) == 3 and fig.axes[0].get_title() == "a (3 x 3)"
    assert fig.axes[0].get_ylabel() == "1-NN accuracy (10-fold CV x 10)"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["IterativeLS", "LS", "Variance"]
    clusters = pd.DataFrame([{"n_clusters": c, "method": m, "params": "default", "n_features": n, "metric": k,
                              "mean": 0.5} for c in (5, 40) for m in (ils.ILS, ils.LS) for n in (10, 20)
                             for k in ("kmeans_acc", "kmeans_nmi")])
    fig = ils.figure2(clusters, runs=20)
    assert len(fig.axes) == 4 and "5 clusters: NMI" in fig.axes[2].get_title()
    train = pd.DataFrame([{"n_train": t, "method": ils.ILS if d else ils.LS,
                           "params": f"n_drop={d}_variant=1" if d else "default", "n_features": n, "metric": "nn_acc",
                           "mean": 0.5} for t in (2, 5) for d in (0, 1, 10) for n in (10, 20)])
    fig = ils.figure3(train, n_splits=3)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert len(fig.axes) == 2 and labels == ["IterativeLS d=1", "IterativeLS d=10", "LS"]
