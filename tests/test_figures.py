"""Every figure of the papers and the benchmark, at 1, 2 and 5 datasets: nothing off the canvas.

Each figure is drawn from small synthetic tables shaped like its script's input; then every text
artist (titles, labels, tick labels, legend entries, annotations) must lie inside the figure, the
saved PNG must have a blank border, feature-count axes must have integer ticks only, and the shared
legend must list every curve.
"""

from __future__ import annotations

import io

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest
from matplotlib.text import Text

from ufskit import plots
from ufskit.papers import benchmark as B
from ufskit.papers import ils, kudfs, nrfs
from ufskit.papers.benchmark_stats import random_band
from ufskit.papers.ivfs import report as R
from ufskit.papers.nrfs import calibration as nrfs_calibration

NAMES = ["wine", "lymphoma_with_a_long_name", "Brain_Tumor2", "TOX_171", "ionosphere"]
COUNTS = [2, 5, 10]


def _names(n):
    return NAMES[:n]


def _rng(n):
    return np.random.default_rng(n)


def _draws(keys: dict, counts, metrics, n_draws: int = 5) -> pd.DataFrame:
    """Long metric rows of a Random method: ``n_draws`` draws per key combination, metric and count."""
    rng = np.random.default_rng(7)
    index = pd.MultiIndex.from_product([*keys.values(), metrics, counts, range(n_draws)],
                                       names=[*keys, "metric", "n_features", "rep"])
    frame = index.to_frame(index=False).assign(method="Random")
    return frame.assign(value=0.3 + 0.1 * rng.random(len(frame)))


# ---- synthetic inputs, one builder per figure ---------------------------------------------


def ils_fig1(n):
    rows = [{"dataset": d, "method": m, "params": "n_drop=1_variant=1" if m.startswith("Iterative") else "default",
             "n_features": c, "metric": ils.UCI_METRIC, "mean": 0.5 + 0.01 * c}  # every curve coincides
            for d in _names(n) for m in ils.UCI_METHODS for c in range(1, 8)]
    titles = {d: f"{d} (178 x 13, 3 classes)" for d in _names(n)}
    return ils.figure1(pd.DataFrame(rows), titles, n_folds=3, n_repeats=2, protocol="smoke")


def ils_fig2(n):
    clusters = [5, 10, 20, 30, 40][:n]
    rows = [{"n_clusters": c, "method": m, "params": "n_drop=200_variant=1" if m == ils.ILS else "default",
             "n_features": f, "metric": k, "mean": 0.4 + 0.001 * f}
            for c in clusters for m in (ils.ILS, ils.LS) for f in (20, 200, 1000) for k in ("kmeans_acc", "kmeans_nmi")]
    band = random_band(_draws({"n_clusters": clusters}, (20, 200, 1000), ("kmeans_acc", "kmeans_nmi")),
                       by=("n_clusters",))
    return ils.figure2(pd.DataFrame(rows), runs=2, band=band)


def ils_fig3(n):
    rows = [{"n_train": t, "method": ils.ILS if d else ils.LS, "params": f"n_drop={d}_variant=1" if d else "default",
             "n_features": f, "metric": "nn_acc", "mean": 0.5}
            for t in range(2, 2 + n) for d in (0, 200, 400) for f in (20, 200)]
    return ils.figure3(pd.DataFrame(rows), n_splits=2, protocol="quick")


def ivfs_curves(n):
    rows = [{"dataset": d, "method": m, "params": "default", "n_features": c, "mean": 1.0 / c}
            for d in _names(n) for m in ("SPEC", "MCFS", "GLSPFS", "IVFS-linf") for c in COUNTS]
    reference = {d: 0.2 for d in _names(n)}
    band = random_band(_draws({"dataset": _names(n)}, COUNTS, ("L2",)))
    return R.draw_curves(pd.DataFrame(rows), ylabel="||D - D_F||_2", reference=reference, band=band,
                         title="Fig. 2: L2 norm of D - D_F vs. number of features")


def ivfs_fig4(n):
    metrics = list(R.FIG4_METRICS)[: min(n, len(R.FIG4_METRICS))]
    rows = [{"metric": m, "n_subsets": k, "subset_samples": s, "relative": 1.0 - 0.1 * (k == 30), "cells": n}
            for m in metrics for k in (30, 60)[: 1 + (n > 1)] for s in (0.1, 0.5)]
    return R.draw_fig4(pd.DataFrame(rows))


def kudfs_fig1(n):
    m = np.arange(1, 41)
    first = pd.DataFrame({"n_features": m, "ordered": 0.4 + m / 100, "unordered": 0.6, "all_features": 0.58})
    curves = {f"gamma={g:g}, lam={1000:g}": first.assign(ordered=first["ordered"] + 0.01 * i)
              for i, g in enumerate([1, 0.1, 0.01, 0.001, 1e-4][:n])}
    return kudfs.figure1(curves, "thyroid", kernel="RBF kernel, sigma = 1", protocol="smoke")


def kudfs_fig2(n):
    rows = []
    for d in _names(n):
        for c in range(1, 7):  # coinciding kernel UDFS and Kernel PCA
            rows += [{"dataset": d, "method": kudfs.KUDFS, "n_features": c, "acc": 0.6, "setting": "gamma=1"},
                     {"dataset": d, "method": kudfs.KPCA, "n_features": c, "acc": 0.6, "setting": ""}]
        rows.append({"dataset": d, "method": kudfs.KKMEANS, "n_features": pd.NA, "acc": 0.55, "setting": ""})
    curves = pd.DataFrame(rows).astype({"n_features": "Int64"})
    published = pd.DataFrame({"kernel_udfs": [70.0] * n}, index=_names(n))
    return kudfs.figure2(curves, published, kernel="RBF kernel, sigma = 1")


def _synthetic(n):
    rng = _rng(n)
    X = rng.normal(size=(60, 8))
    y = np.repeat(np.arange(4), 15)
    noisy = np.arange(0, 60, 7)
    return X, y, noisy


def nrfs_fig1(n):
    return nrfs.figure1(*_synthetic(n))


def nrfs_fig4(n):
    X, y, noisy = _synthetic(n)
    return nrfs.figure4(X, y, noisy, np.arange(10, 30), noisy[:-1], protocol="smoke")


def _groups(n):
    return {d: ("microarray" if i % 2 else "text") for i, d in enumerate(_names(n))}


def nrfs_fig5(n):
    rows = [{"dataset": d, "method": m, "n_features": c, "nmi": 0.3, "beyond_ranked": m == "MCFS" and c >= 1400}
            for d in _names(n) for m in ("NRFS", "NRFS-2", "MCFS", "LS", "NDFS", "SPEC")
            for c in (200, 600, 1000, 1400, 1800)]
    kmeans_all = pd.DataFrame({"dataset": _names(n), "nmi": 0.25})
    band = random_band(_draws({"dataset": _names(n)}, (200, 600, 1000, 1400, 1800), ("kmeans_nmi",)))
    return nrfs.figure5(pd.DataFrame(rows), kmeans_all, _groups(n), band=band)


def nrfs_fig6(n):
    rows = [{"dataset": d, "q": q, "n_features": c, "nmi": 0.3} for d in _names(n) for q in (10, 30, 50)
            for c in (20, 60)]
    return nrfs.figure6(pd.DataFrame(rows), _groups(n), protocol="quick")


def nrfs_fig7(n):
    rows = [{"dataset": d, "method": m, "seconds": 0.1 + i} for d in _names(n)
            for i, m in enumerate(nrfs.TIMING_ORDER)]
    return nrfs.figure7(pd.DataFrame(rows), _groups(n))


def nrfs_sensitivity(n):
    base = {"noise_scale": 400.0, "n_noise": 80, "cluster_spread": 1.0, "cluster_separation": 1.0}
    parameters = list(base)[:min(n, len(base))]
    factors = (0.5, 0.96, 1.0, 2.0, 8.0)  # 0.96 and 1.0: neighbouring ticks on a log axis, as in the full sweep
    rows = [{"parameter": p, "value": base[p] * f, "method": m, "variant": v, "nmi": 1.0 / (1 + i * f)}
            for p in parameters for f in factors for i, m in enumerate(nrfs.TABLE1_ORDER)
            for v in ("all", "normal")]
    published = pd.DataFrame({"method": list(nrfs.TABLE1_ORDER), "nmi_all_instances": 0.2,
                              "nmi_normal_instances": 0.3})
    return nrfs_calibration.figure_sensitivity(pd.DataFrame(rows), published, base, protocol="quick")


def _benchmark_summary(n, methods: dict):
    """A benchmark summary of random values for ``methods`` (label -> selector) on n datasets, and its mean ranks."""
    experiments = {"lowdim": {"datasets": _names(n), "methods": {m: {"selector": s} for m, s in methods.items()}}}
    rng = _rng(n)
    rows = [{"experiment": "lowdim", "dataset": d, "method": m, "params": "default", "rep": 0,
             "n_features": pd.NA if metric == "fit_seconds" else c, "metric": metric, "value": rng.uniform()}
            for d in _names(n) for m in methods for metric in B.METRICS
            for c in ([1] if metric == "fit_seconds" else COUNTS)]
    summary = B.summary_table(pd.DataFrame(rows).astype({"n_features": "Int64"}), B.plan(experiments, {}))
    return summary, B.mean_ranks(summary)


def benchmark_heatmap(n):
    return B.heatmap(*_benchmark_summary(
        n, {"Variance": "Variance", "LS": "LaplacianScore", "SPEC": "SPEC", "KernelUDFS": "KernelUDFS"}))


def benchmark_heatmap_labels(n):
    """A group's figure, with the positive control's hatched row."""
    methods = {"Variance": "Variance", "LS": "LaplacianScore", "SPEC": "SPEC", "ANOVA-F": "AnovaF"}
    return B.heatmap_group(*_benchmark_summary(n, methods), "labels")


FIGURES = {f.__name__: f for f in (ils_fig1, ils_fig2, ils_fig3, ivfs_curves, ivfs_fig4, kudfs_fig1, kudfs_fig2,
                                   nrfs_fig1, nrfs_fig4, nrfs_fig5, nrfs_fig6, nrfs_fig7, nrfs_sensitivity,
                                   benchmark_heatmap, benchmark_heatmap_labels)}


# ---- the checks ----------------------------------------------------------------------------


def _texts(fig):
    """Every text artist the figure draws: titles, labels, legends, annotations and tick labels in view.

    Matplotlib keeps tick labels of ticks outside the view limits but does not draw them; they are
    left out.
    """
    hidden = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            slack = 1e-9 * max(abs(low), abs(high), 1.0)
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - slack <= tick.get_loc() <= high + slack:
                    hidden.update({id(tick.label1), id(tick.label2)})
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in hidden]


def _outside(fig):
    """Text artists whose window extent leaves the canvas (with half a pixel of rounding slack)."""
    renderer = fig.canvas.get_renderer()  # finish() laid the figure out last
    W, H = fig.bbox.width, fig.bbox.height
    bad = []
    for t in _texts(fig):
        box = t.get_window_extent(renderer)
        if box.x0 < -0.5 or box.y0 < -0.5 or box.x1 > W + 0.5 or box.y1 > H + 0.5:
            bad.append(t.get_text())
    return bad


def _overlapping_ticks(fig):
    """Pairs of neighbouring tick labels of one axis that overlap (e.g. '8001000' on a narrow panel).

    Upright labels overlap when their boxes do. Rotated labels (parallel, same angle) overlap when
    the distance between their baselines, the anchors' distance along the axis times the sine of the
    angle, is below the text height: their axis-aligned boxes overlap even when the glyphs do not.
    """
    renderer = fig.canvas.get_renderer()
    hits = []
    for ax in fig.axes:
        for axis, along in ((ax.xaxis, 0), (ax.yaxis, 1)):
            low, high = sorted(axis.get_view_interval())
            labels = [t.label1 for t in axis.get_major_ticks()
                      if low <= t.get_loc() <= high and t.label1.get_visible() and t.label1.get_text()]
            boxes = [label.get_window_extent(renderer) for label in labels]
            for i in range(len(labels) - 1):
                a, b = labels[i], labels[i + 1]
                angle = a.get_rotation()
                if angle % 90 == 0:
                    overlap = boxes[i].overlaps(boxes[i + 1])
                else:
                    anchors = (ax.transData.transform((t.get_position()[0], 0) if along == 0 else
                                                      (0, t.get_position()[1]))[along] for t in (a, b))
                    gap = abs(np.subtract(*anchors)) * abs(np.sin(np.radians(angle)))
                    overlap = gap < a.get_fontsize() * fig.dpi / 72
                if overlap:
                    hits.append((a.get_text(), b.get_text()))
    return hits


@pytest.mark.parametrize("n", [1, 2, 5])
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_text_lies_inside_the_figure_and_the_border_is_blank(name, n, tmp_path):
    fig = FIGURES[name](n)
    assert _outside(fig) == []
    assert _overlapping_ticks(fig) == []
    path = tmp_path / "f.png"
    plots.save_figure(fig, path, dpi=100)  # the margin is 2/72 inch: 2.8 pixels
    image = mpimg.imread(path)[..., :3]
    border = np.concatenate([image[:2].reshape(-1, 3), image[-2:].reshape(-1, 3),
                             image[:, :2].reshape(-1, 3), image[:, -2:].reshape(-1, 3)])
    assert border.min() > 0.98  # white


@pytest.mark.parametrize("name", ["ils_fig1", "ivfs_curves", "kudfs_fig2", "nrfs_fig5", "nrfs_fig6"])
def test_feature_count_axes_have_integer_ticks_only(name):
    fig = FIGURES[name](2)
    fig.draw_without_rendering()
    for ax in fig.axes:
        ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        assert ticks and all(float(t).is_integer() for t in ticks), (ax.get_title(), ticks)


def test_coinciding_curves_stay_visible():
    """IterativeLS, LS and Variance draw the same curve: each later one is narrower and on top."""
    ax = FIGURES["ils_fig1"](1).axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    below, above = lines["IterativeLS"], lines["LS"]
    assert np.array_equal(below.get_ydata(), above.get_ydata())
    assert below.get_linewidth() > above.get_linewidth() and below.get_markersize() > above.get_markersize()
    assert below.get_zorder() < above.get_zorder() and below.get_linestyle() != above.get_linestyle()


def test_legend_wraps_to_the_width_and_lists_every_curve():
    fig = FIGURES["nrfs_fig5"](1)
    (legend,) = fig.legends
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels == [plots.RANDOM_BAND_LABEL, "NRFS", "NRFS-2", "MCFS", "LS", "NDFS", "SPEC", "K-means (all features)",
                      plots.BEYOND_RANKED_LABEL]
    renderer = fig.canvas.get_renderer()
    assert legend.get_window_extent(renderer).width <= fig.bbox.width
    assert legend._ncols < len(labels)  # one panel is too narrow for seven entries in a row


def test_titles_and_labels_come_from_the_settings_that_ran():
    fig = FIGURES["ils_fig1"](2)
    assert fig.axes[0].get_ylabel() == "1-NN accuracy (3-fold CV x 2)"
    title = fig.get_suptitle().replace("\n", " ")
    assert "2 UCI data sets" in title and "d = 1" in title and title.endswith("(smoke\u00a0protocol)")
    assert "sigma = 1" in FIGURES["kudfs_fig1"](1).get_suptitle().replace("\n", " ")
    assert "at 200, 600, ..., 1800 selected features" in FIGURES["nrfs_fig5"](1).get_suptitle().replace("\n", " ")
    assert "q = 10, 30, 50" in FIGURES["nrfs_fig6"](1).get_suptitle().replace("\n", " ")


@pytest.mark.parametrize("name", ["ils_fig2", "ivfs_curves", "nrfs_fig5"])
def test_curve_figures_shade_random_features_behind_the_curves(name):
    """Each panel has one grey band spanning its counts, drawn below every curve and named in the legend."""
    fig = FIGURES[name](2)
    for ax in fig.axes:
        (band,) = ax.collections
        assert band.get_label() == plots.RANDOM_BAND_LABEL
        assert all(band.get_zorder() < line.get_zorder() for line in ax.get_lines())
        low, high = band.get_paths()[0].vertices[:, 0].min(), band.get_paths()[0].vertices[:, 0].max()
        assert (low, high) == (min(ax.get_lines()[0].get_xdata()), max(ax.get_lines()[0].get_xdata()))
    assert plots.RANDOM_BAND_LABEL in [t.get_text() for t in fig.legends[0].get_texts()]


def test_counts_beyond_the_ranked_features_are_ringed():
    """MCFS past its n_ranked features (the fixture's counts 1400 and 1800): those points, and only they, ringed."""
    fig = FIGURES["nrfs_fig5"](2)
    for ax in fig.axes:
        rings = [line for line in ax.get_lines() if line.get_label() == plots.BEYOND_RANKED_LABEL]
        assert len(rings) == 1 and list(rings[0].get_xdata()) == [1400.0, 1800.0]
        assert rings[0].get_markerfacecolor() == "none" and rings[0].get_linestyle() == "None"
    assert plots.BEYOND_RANKED_LABEL in [t.get_text() for t in fig.legends[0].get_texts()]
    plain = FIGURES["ivfs_curves"](1)  # no beyond_ranked column: nothing ringed, no legend entry
    assert plots.BEYOND_RANKED_LABEL not in [t.get_text() for t in plain.legends[0].get_texts()]


def test_random_band_holds_the_quantiles_of_the_draws():
    draws = pd.DataFrame({"dataset": "a", "method": "Random", "metric": "m", "n_features": [5] * 21 + [9] * 2,
                          "value": [*range(21), 1.0, 3.0]})
    band = random_band(pd.concat([draws, draws.assign(method="LS", value=100.0)])).set_index("n_features")
    assert band.loc[5, ["low", "median", "high", "draws"]].tolist() == [1.0, 10.0, 19.0, 21]  # 5 % of 20 steps
    assert band.loc[9, ["low", "high"]].tolist() == pytest.approx([1.1, 2.9])
    assert random_band(draws.assign(method="LS")).empty  # no Random method: no band


def test_long_titles_wrap_instead_of_running_off():
    fig, axes = plots.panel_grid(1)
    axes[0].set_title("a very long panel title " * 6)
    plots.finish(fig, axes, title="a much longer figure title that cannot fit on one line " * 4, legend=False)
    assert fig.get_suptitle().count("\n") >= 2 and "\n" in axes[0].get_title()
    assert fig.get_size_inches()[0] == pytest.approx(6.4)  # wrapped, not widened
    assert _outside(fig) == []


def test_degenerate_requests_are_refused():
    with pytest.raises(ValueError, match="n_panels"):
        plots.panel_grid(0)
    with pytest.raises(ValueError, match="protocol"):
        plots.protocol_title("t", "fast")
    fig, axes = plots.panel_grid(1)
    assert plots.shared_legend(fig, axes) is None  # nothing labelled: no empty legend box


def test_save_figure_writes_png_and_pdf(tmp_path):
    fig = FIGURES["nrfs_fig7"](1)
    plots.save_figure(fig, tmp_path / "f.png", tmp_path / "f.pdf", dpi=30)
    assert (tmp_path / "f.pdf").read_bytes()[:4] == b"%PDF"
    buffer = io.BytesIO((tmp_path / "f.png").read_bytes())
    assert mpimg.imread(buffer).shape[1] == round(fig.get_size_inches()[0] * 30)
