"""Methods added by ``extra_methods`` in the remaining figures: NRFS Figs. 6-7 and the sensitivity sweep, kernel UDFS
Figs. 1-2 and ILS Fig. 1 with a grid. Each appears under its label marked not in the paper (in_paper False, a dagger),
in a style no paper method has, its grid reduced as documented, and the paper's numbers unchanged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgb

from ufskit import plots
from ufskit.papers import EXTRA_MARK, added_styles, ils, kudfs, nrfs, paper_rows, with_in_paper
from ufskit.papers.nrfs import calibration as C

MINE = f"Mine{EXTRA_MARK}"
METHODS = {"NRFS": {"selector": "NRFS"}, "LS": {"selector": "LaplacianScore"},
           "Mine": {"selector": "Variance", "params": {}, "extra": True}}


def _lines(fig) -> dict:
    """Label -> Line2D of every labelled curve of the figure's axes."""
    return {line.get_label(): line for ax in fig.axes for line in ax.get_lines() if not line.get_label().startswith("_")}


def _saved(fig, tmp_path) -> bool:
    path = tmp_path / "figure.png"
    plots.save_figure(fig, path)
    return path.stat().st_size > 5_000


def test_an_added_method_has_a_style_no_paper_method_has():
    paper = set(plots.METHOD_STYLE.values()) | {(s["color"], s["marker"]) for s in C.REFERENCE_STYLE.values()}
    for i in range(len(plots.ADDED_STYLES)):
        style = plots.method_style("NRFS", 2, added=i)  # whatever its label
        assert style["linestyle"] == plots.ADDED_LINESTYLE and style["marker"] not in {marker for _, marker in paper}
        assert style["color"] not in {color for color, _ in paper} | {"black", "gray"}  # nor a reference line's
    assert plots.method_style("NRFS", 0)["color"] == "tab:red"  # the paper's methods keep theirs
    table = with_in_paper(pd.DataFrame({"method": ["NRFS", "Mine", "Yours", "Mine"]}),
                          {**METHODS, "Yours": {"selector": "SPEC", "extra": True}})
    assert added_styles(table) == {"Mine": 0, "Yours": 1}
    assert added_styles(pd.DataFrame({"method": ["NRFS"]})) == {}


# ---- NRFS Figs. 6-7 and the sensitivity sweep ----------------------------------------------------------------------


def _metrics() -> pd.DataFrame:
    """Long metric rows of the real experiments: NRFS at two q, LS, Mine; NMI at two counts, fit seconds."""
    rows = []
    for dataset in ("Brain_Tumor2", "Leukemia2"):
        for method, slug, base in (("NRFS", "q=30", 0.5), ("NRFS", "q=50", 0.6), ("LS", "default", 0.3),
                                   ("Mine", "default", 0.4)):
            for rep in range(2):
                rows += [{"experiment": "e", "dataset": dataset, "method": method, "params": slug, "rep": rep,
                          "n_features": count, "metric": "kmeans_nmi", "value": base + count / 1000 + rep / 100}
                         for count in (200, 500)]
                rows.append({"experiment": "e", "dataset": dataset, "method": method, "params": slug, "rep": rep,
                             "n_features": pd.NA, "metric": "fit_seconds", "value": 1.0 + rep})
    return pd.DataFrame(rows)


def _params() -> pd.DataFrame:
    return pd.DataFrame({"experiment": "e", "method": ["NRFS", "NRFS", "LS", "Mine"],
                         "params": ["q=30", "q=50", "default", "default"], "reference": False,
                         "q": [30, 50, np.nan, np.nan], "max_nonzero": np.nan})


def test_nrfs_fig6_draws_an_added_method_beside_nrfs_q_curves(tmp_path):
    frame = _metrics()
    added = nrfs.added_curves(frame, METHODS)
    assert set(added["method"]) == {"Mine"} and not added["in_paper"].any()
    at = added.set_index(["dataset", "n_features"])["nmi"]
    assert at[("Leukemia2", 200)] == pytest.approx(0.4 + 0.2 + 0.005)  # mean over its runs
    assert nrfs.added_curves(frame, {m: s for m, s in METHODS.items() if m != "Mine"}).empty
    qcurves = nrfs.q_curves(frame, _params())
    assert set(qcurves.columns) == {"dataset", "q", "n_features", "nmi", "runs"}  # fig6.csv as before
    fig = nrfs.figure6(qcurves, {"Brain_Tumor2": "microarray", "Leukemia2": "microarray"}, added=added)
    lines = _lines(fig)
    assert {"q=30", "q=50", MINE} <= set(lines)
    assert (lines[MINE].get_color(), lines[MINE].get_marker()) == plots.ADDED_STYLES[0]
    assert _saved(fig, tmp_path)
    without = nrfs.figure6(qcurves, {"Brain_Tumor2": "microarray"})
    assert MINE not in _lines(without)


def test_nrfs_fig7_has_a_marked_bar_of_an_added_method_and_claim_fig7_ignores_it(tmp_path):
    frame = _metrics()
    times = with_in_paper(nrfs.fit_times(frame, _params()), METHODS)
    assert not times.loc[times["method"] == "Mine", "in_paper"].any() and times.loc[times["method"] != "Mine",
                                                                                    "in_paper"].all()
    fig = nrfs.figure7(times, {"Brain_Tumor2": "microarray", "Leukemia2": "microarray"})
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks == ["LS", "NRFS-1", MINE]  # the paper's order, the added method last
    bars = fig.axes[0].patches
    assert bars[-1].get_facecolor()[:3] == pytest.approx(to_rgb(plots.ADDED_STYLES[0][0]))  # the added colour
    assert _saved(fig, tmp_path)
    assert nrfs.claim_fig7(paper_rows(times)) == nrfs.claim_fig7(times[times["method"] != "Mine"])


def test_the_sensitivity_sweep_fits_an_added_method_and_leaves_the_others_points_alone(tmp_path):
    base = {"n_per_cluster": 20, "n_noise": 4, "n_features": 6, "noise_scale": 150.0}
    sweeps = {"noise_scale": [150.0, 3000.0]}
    paper = {"K-means": None, "LS": {"selector": "LaplacianScore", "params": {"n_neighbors": 5}}}
    mine = {"selector": "Variance", "params": {}, "extra": True}  # as nrfs_sensitivity_methods passes it
    alone = C.sensitivity(base, sweeps, paper, kmeans={"n_init": 2})
    both = C.sensitivity(base, sweeps, {**paper, "Mine": mine}, kmeans={"n_init": 2})
    assert len(both[both["method"] == "Mine"]) == 4  # two points x two variants
    pd.testing.assert_frame_equal(both[both["method"] != "Mine"].reset_index(drop=True), alone)
    frame = with_in_paper(both, {m: s or {} for m, s in {**paper, "Mine": mine}.items()})
    assert not frame.loc[frame["method"] == "Mine", "in_paper"].any()
    assert C.claim_robustness(paper_rows(frame)) == C.claim_robustness(alone)
    published = pd.DataFrame({"method": ["K-means", "LS"], "nmi_all_instances": 0.2, "nmi_normal_instances": 0.3})
    fig = C.figure_sensitivity(frame, published, {"noise_scale": 150.0}, protocol="quick")
    lines = _lines(fig)
    assert {"K-means", "LS", MINE} <= set(lines) and lines[MINE].get_color() == plots.ADDED_STYLES[0][0]
    assert _saved(fig, tmp_path)


# ---- kernel UDFS Figs. 1-2 ------------------------------------------------------------------------------------------


def test_kudfs_fig2_tunes_an_added_method_per_count_and_marks_it(tmp_path):
    rows = [{"dataset": "wine", "method": m, "params": p, "n_features": c, "metric": kudfs.METRIC, "rep": r,
             "value": v + 0.01 * r}
            for m, p, values in ((kudfs.KUDFS, "gamma=1", (0.5, 0.6)), ("Mine", "n_init=1", (0.7, 0.2)),
                                 ("Mine", "n_init=10", (0.4, 0.3)))
            for r in range(2) for c, v in zip((1, 2), values)]
    competitors = pd.DataFrame([{"dataset": "wine", "method": kudfs.KPCA, "n_features": c, "metric": kudfs.METRIC,
                                 "value": 0.5} for c in (1, 2)]
                               + [{"dataset": "wine", "method": kudfs.KKMEANS, "n_features": pd.NA,
                                   "metric": kudfs.METRIC, "value": 0.55}])
    kernel, dims = pd.DataFrame(rows), {"wine": 13}
    plain = kudfs.fig2_curves(kernel, competitors, dims)
    assert "in_paper" not in plain and "Mine" not in set(plain["method"])  # fig2.csv as before without an overlay
    curves = kudfs.fig2_curves(kernel, competitors, dims, extra=["Mine"])
    mine = curves[curves["method"] == "Mine"].set_index("n_features")
    assert mine["setting"].to_dict() == {1: "n_init=1", 2: "n_init=10"}  # the best mean ACC at each count
    assert mine["acc"].round(6).tolist() == [0.705, 0.305] and not mine["in_paper"].any()
    assert curves.loc[curves["method"] != "Mine", "in_paper"].all()
    pd.testing.assert_frame_equal(curves[curves["in_paper"]].drop(columns="in_paper").reset_index(drop=True), plain)
    fig = kudfs.figure2(curves, pd.DataFrame({"kernel_udfs": [70.0]}, index=["wine"]), kernel="RBF kernel, sigma = 1")
    lines = _lines(fig)
    assert MINE in lines and lines[MINE].get_ydata().tolist() == pytest.approx([70.5, 30.5])
    assert _saved(fig, tmp_path)
    with pytest.raises(ValueError, match="Yours"):
        kudfs.fig2_curves(kernel, competitors, dims, extra=["Yours"])


def test_kudfs_fig1_draws_an_added_method_on_its_own_features(tmp_path, rng):
    X = np.vstack([rng.normal(0, 1, (15, 4)), rng.normal(3, 1, (15, 4))])
    y = np.repeat([0, 1], 15)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    curves = {"gamma=1": kudfs.distance_ratio_curves(K, y, np.arange(30)[::-1])}
    mine = kudfs.distance_ratio_curves(X, y, np.arange(4))  # a selector ranking the original features
    fig = kudfs.figure1(curves, "toy", added={MINE: mine}, protocol="smoke")
    lines = _lines(fig)
    assert lines[f"ordered by {MINE}"].get_color() == plots.ADDED_STYLES[0][0]
    whole = lines[f"all features ranked by {MINE}"]
    assert whole.get_ydata()[0] == pytest.approx(mine["all_features"].iloc[0])
    assert _saved(fig, tmp_path)
    assert "all features ranked by" not in " ".join(_lines(kudfs.figure1(curves, "toy")))


# ---- ILS Fig. 1 -----------------------------------------------------------------------------------------------------


def test_ils_fig1_draws_an_added_method_with_a_grid_at_its_best_setting(tmp_path):
    rows = [{"dataset": d, "method": m, "params": "default", "n_features": c, "metric": ils.UCI_METRIC,
             "mean": 0.5 + 0.01 * c} for d in ("wine", "zoo") for m in ils.UCI_METHODS for c in (1, 2, 3)]
    best = {"wine": "n_init=1", "zoo": "n_init=10"}
    for d in ("wine", "zoo"):
        for slug in ("n_init=1", "n_init=10"):
            rows += [{"dataset": d, "method": "Mine", "params": slug, "n_features": c, "metric": ils.UCI_METRIC,
                      "mean": (0.9 if slug == best[d] else 0.4) - 0.01 * c} for c in (1, 2, 3)]
    curves = pd.DataFrame(rows)
    picked = ils._best_setting(curves[curves["dataset"] == "zoo"], "Mine")
    assert set(picked["params"]) == {"n_init=10"} and len(picked) == 3
    fig = ils.figure1(curves, {}, n_folds=3, n_repeats=1, extra=["Mine"])
    label = f"{MINE} (best setting)"
    drawn = [line for ax in fig.axes for line in ax.get_lines() if line.get_label() == label]
    assert len(drawn) == 2 and all(line.get_ydata().tolist() == pytest.approx([0.89, 0.88, 0.87]) for line in drawn)
    assert ils.fig1_values(curves).query("method == 'Mine'")["value"].round(6).tolist() == [0.88, 0.88]
    assert _saved(fig, tmp_path)
    one = curves[(curves["method"] != "Mine") | (curves["params"] == "n_init=1")]
    assert MINE in _lines(ils.figure1(one, {}, n_folds=3, n_repeats=1, extra=["Mine"]))  # one setting: no note


# ---- IVFS Figs. 2-3 --------------------------------------------------------------------------------------------


def test_ivfs_curves_draw_an_added_method_in_its_own_style(tmp_path):
    from ufskit.papers.ivfs.report import draw_curves

    frame = with_in_paper(pd.DataFrame([{"dataset": "lymphoma", "method": m, "params": "default", "n_features": n,
                                         "mean": v + n / 100}
                                        for m, v in (("IVFS-linf", 1.0), ("Mine", 2.0)) for n in (20, 60)]),
                          {"IVFS-linf": {"selector": "IVFS"}, "Mine": METHODS["Mine"]})
    fig = draw_curves(frame, ylabel="L2", title="Fig. 2")
    lines = _lines(fig)
    assert set(lines) == {"IVFS-linf", MINE}
    assert to_rgb(lines[MINE].get_color()) == to_rgb(plots.ADDED_STYLES[0][0])
    assert to_rgb(lines["IVFS-linf"].get_color()) == to_rgb(plots.METHOD_STYLE["IVFS-linf"][0])
    assert _saved(fig, tmp_path)
