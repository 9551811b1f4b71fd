"""Random as the chance reference of the papers' curve figures: its own metric options, its band, and never a row
of a paper's table, claim or the scorecard."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ufskit import scorecard as S
from ufskit.experiments import method_metrics
from ufskit.papers import ils, nrfs, paper_methods, reference_labels
from ufskit.papers import ivfs as P

RANDOM = {"selector": "Random", "reps": 20, "metrics": {"kmeans": {"n_runs": 1}}}


def test_a_method_changes_only_its_own_metric_options():
    exp = {"metrics": {"kmeans": {"n_runs": 30, "n_init": 100}, "knn": {"n_splits": 10}},
           "methods": {"LS": {"selector": "LaplacianScore"}, "Random": RANDOM}}
    assert method_metrics(exp, "Random") == {"kmeans": {"n_runs": 1, "n_init": 100}, "knn": {"n_splits": 10}}
    assert method_metrics(exp, "LS") == exp["metrics"]
    assert exp["metrics"]["kmeans"]["n_runs"] == 30  # the experiment's options are not touched
    exp["methods"]["Random"] = {**RANDOM, "metrics": {"kmeans": {"n_rums": 1}}}
    with pytest.raises(ValueError, match=r"metrics.kmeans.n_rums is not an option .*\['n_init', 'n_runs'\]"):
        method_metrics(exp, "Random")


def test_reference_methods_are_found_by_their_selector():
    methods = {"LS": {"selector": "LaplacianScore"}, "chance": {"selector": "Random"}}
    assert reference_labels(methods) == ["chance"]
    assert list(paper_methods(methods)) == ["LS"]


def test_ivfs_protocol_needs_no_fixed_setting_for_random():
    methods = {"SPEC": {"selector": "SPEC"}, "Random": RANDOM}
    protocol = {"table_filter": {}, "fixed": {"SPEC": {}}, "persistence_counts": [2], "literal_min_persistence": 0.1,
                "stability_features": 3, "stability_reps": 2}
    assert P.check_protocol(protocol, methods) == protocol
    assert P.table_slugs(methods, protocol, "Random", 50) == ["default"]  # its draws get persistence: Fig. 3's band
    with pytest.raises(ValueError, match=r"every method but Random; missing \['SPEC'\]"):
        P.check_protocol({**protocol, "fixed": {}}, methods)


def _nrfs_metrics():
    rows = [{"experiment": "e", "dataset": "D", "method": m, "params": "default", "rep": r, "n_features": c,
             "metric": metric, "value": v + 0.01 * r}
            for m, v, reps in (("LS", 0.5, 1), ("Random", 0.2, 20)) for r in range(reps) for c in (10, 20)
            for metric in ("kmeans_nmi", "fit_seconds")]
    return pd.DataFrame(rows)


def test_nrfs_random_is_a_band_never_a_curve_or_a_bar():
    experiments = {"e": {"methods": {"LS": {"selector": "LaplacianScore"}, "Random": RANDOM}}}
    params = nrfs.param_columns(experiments)
    assert params.set_index("method")["reference"].to_dict() == {"LS": False, "Random": True}
    frame = _nrfs_metrics()
    assert set(nrfs.nmi_curves(frame, params, {"D": 100})["method"]) == {"LS"}
    assert set(nrfs.fit_times(frame, params)["method"]) == {"LS"}
    band = nrfs.nmi_band(frame, params).set_index("n_features")
    assert band.loc[10, ["low", "high", "draws"]].tolist() == pytest.approx([0.2 + 0.01 * 0.95, 0.2 + 0.01 * 18.05, 20])
    no_random = {"e": {"methods": {"LS": {"selector": "LaplacianScore"}}}}
    assert nrfs.nmi_band(frame[frame["method"] == "LS"], nrfs.param_columns(no_random)) is None


def test_ils_fig2_band_pools_the_cluster_studies_and_the_generic_runs():
    parts = [pd.DataFrame([{"n_clusters": 5, "rep": r, "method": m, "params": "default", "n_features": 100,
                            "metric": "kmeans_acc", "value": v + 0.1 * r} for m, v in ((ils.LS, 0.6), ("Random", 0.2))])
             for r in range(3)]
    generic = pd.DataFrame({"dataset": "ORL", "method": ["Random"] * 4 + [ils.LS], "params": "default",
                            "rep": [0, 1, 2, 3, 0], "n_features": 100, "metric": "kmeans_acc",
                            "value": [0.1, 0.2, 0.3, 0.4, 0.7]})
    summary = pd.DataFrame({"dataset": "ORL", "method": [ils.LS, "Random"], "params": "default", "n_features": 100,
                            "metric": "kmeans_acc", "mean": [0.7, 0.25], "std": np.nan, "reps": [1, 4]})
    curves = ils.cluster_curves(summary, parts, n_classes=40, reference=["Random"])
    assert set(curves["method"]) == {ils.LS} and sorted(curves["n_clusters"].unique()) == [5, 40]
    band = ils.cluster_band(parts, generic, 40, ["Random"]).set_index("n_clusters")
    assert band.loc[5, "draws"] == 3 and band.loc[40, "draws"] == 4
    assert band.loc[5, ["low", "median", "high"]].tolist() == pytest.approx([0.21, 0.3, 0.39])
    assert band.loc[40, ["low", "high"]].tolist() == pytest.approx([0.115, 0.385])
    assert ils.cluster_band(parts, generic, 40, []).empty


def test_the_scorecard_never_scores_random():
    t1 = pd.DataFrame({"dataset": "lymphoma", "method": ["IVFS-linf", "Random"], "metric": "knn_acc",
                       "reproduced": [93.0, 80.0], "status": "ok"})
    numbers = S.reproduced_numbers("ivfs", S.ReportResults("ivfs", {"table1": t1}))
    assert list(numbers["method"]) == ["IVFS-linf"]
