"""Kernel-UDFS paper module: competitors, distance-ratio curves, Table 1, Fig. 2 curves, claims, figures."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import ROOT
from ufskit import papers
from ufskit.kernels import distance_ratio
from ufskit.papers import kudfs

# ---------------------------------------------------------------- competitors


def blobs(rng, n=30):
    y = np.arange(n) % 2
    return rng.normal(size=(n, 3)) * 0.2 + 3.0 * y[:, None], y


def rings(rng, n=80):
    y = np.arange(n) % 2
    t = rng.uniform(0, 2 * np.pi, n)
    r = np.where(y == 0, 1.0, 4.0)
    return np.c_[r * np.cos(t), r * np.sin(t)] + 0.05 * rng.standard_normal((n, 2)), y


def test_kernel_pca_accuracy_separates_blobs_and_is_deterministic(rng):
    X, y = blobs(rng)
    a = kudfs.kernel_pca_accuracy(X, y, [1, 2, 3], sigma=2.0, kmeans={"n_runs": 3, "n_init": 1}, seed=5)
    assert list(a.columns) == ["method", "n_features", "metric", "value"]
    assert list(a["n_features"]) == [1, 2, 3] and set(a["method"]) == {"KernelPCA"}
    assert a["value"].iloc[0] == 1.0  # the first kernel component splits two far blobs
    b = kudfs.kernel_pca_accuracy(X, y, [3, 1, 2], sigma=2.0, kmeans={"n_runs": 3, "n_init": 1}, seed=5)
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize("counts, sigma, match", [([0, 1], 1.0, "counts"), ([31], 1.0, "counts"), ([1], 0.0, "sigma")])
def test_kernel_pca_accuracy_bad_input(rng, counts, sigma, match):
    X, y = blobs(rng)
    with pytest.raises(ValueError, match=match):
        kudfs.kernel_pca_accuracy(X, y, counts, sigma=sigma, kmeans={}, seed=0)


def test_kernel_kmeans_accuracy_on_rings(rng):
    X, y = rings(rng)
    out = kudfs.kernel_kmeans_accuracy(X, y, sigma=1.0, kmeans={"n_runs": 3, "n_init": 5}, seed=1)
    assert len(out) == 1 and out["n_features"].isna().all() and out["method"].iloc[0] == "KernelKMeans"
    assert out["value"].iloc[0] == 1.0
    with pytest.raises(ValueError, match="sigma"):
        kudfs.kernel_kmeans_accuracy(X, y, sigma=-1.0, kmeans={}, seed=1)


# ---------------------------------------------------------------- Fig. 1 curves


def test_distance_ratio_curves_by_hand():
    y = np.array([0, 0, 1, 1])
    K = np.array([[0.0, 0.0, 1.0, 2.0],
                  [0.0, 5.0, 3.0, 1.0],
                  [10.0, 0.0, 2.0, 2.0],
                  [10.0, 5.0, 0.0, 3.0]])
    curves = kudfs.distance_ratio_curves(K, y, order=np.array([1, 0, 3, 2]))
    assert list(curves["n_features"]) == [1, 2, 3, 4]
    # column 1 alone: within |0-5| twice -> 5; between 0, 5, 5, 0 -> 2.5; ratio 2
    assert curves["ordered"].iloc[0] == pytest.approx(2.0)
    # column 0 alone separates the classes perfectly: within distances are 0
    assert curves["unordered"].iloc[0] == pytest.approx(0.0)
    assert curves["ordered"].iloc[1] == pytest.approx(distance_ratio(K[:, [1, 0]], y))
    assert curves["ordered"].iloc[-1] == pytest.approx(curves["unordered"].iloc[-1])  # all columns either way
    assert np.allclose(curves["all_features"], distance_ratio(K, y))


def test_distance_ratio_curves_reject_a_bad_order():
    with pytest.raises(ValueError, match="permutation"):
        kudfs.distance_ratio_curves(np.eye(4), [0, 0, 1, 1], order=np.array([0, 1, 1, 2]))


# ---------------------------------------------------------------- Table 1


def metric_rows(dataset, method, params, values, metric="kmeans_acc"):
    return pd.DataFrame({"dataset": dataset, "method": method, "params": params,
                         "n_features": pd.array(range(1, len(values) + 1), dtype="Int64"),
                         "metric": metric, "value": values})


@pytest.fixture
def frames():
    udfs = pd.concat([
        metric_rows("a", "UDFS", "u", [0.60, 0.70, 0.65]),  # d = 3: all features = 0.65
        metric_rows("b", "UDFS", "u", [0.55, 0.50]),  # d = 2
        metric_rows("a", "UDFS", "u", [0.1, 0.2, 0.3], metric="kmeans_nmi"),  # another metric: ignored
    ])
    kernel = pd.concat([
        metric_rows("a", "KernelUDFS", "c1", [0.80, 0.60, 0.70, 0.99]),  # count 4 > d: ignored
        metric_rows("a", "KernelUDFS", "c2", [0.50, 0.85, 0.10, 0.10]),
        metric_rows("b", "KernelUDFS", "c1", [0.52, 0.58, 0.90, 0.90]),
        metric_rows("b", "KernelUDFS", "c2", [0.40, 0.40, 0.95, 0.95]),
    ])
    dims = {"a": 3, "b": 2}
    published = pd.DataFrame({"all_features": [60.0], "udfs": [70.0], "kernel_udfs": [90.0]},
                             index=pd.Index(["b"], name="dataset"))
    return udfs, kernel, dims, published


def test_table1_best_within_d_with_published_beside(frames):
    udfs, kernel, dims, published = frames
    table = kudfs.table1(udfs, kernel, dims, published, labels={"c1": "const=0.1", "c2": "const=0.2"})
    assert list(table["dataset"]) == ["b", "a"]  # the published order first, then the rest
    a = table.set_index("dataset").loc["a"]
    assert a["d"] == 3 and a["all_features"] == pytest.approx(65.0)
    assert a["udfs"] == pytest.approx(70.0) and a["udfs_n_features"] == 2
    assert a["kernel_udfs"] == pytest.approx(85.0)  # not the 99 at count 4 > d
    assert (a["kernel_udfs_setting"], a["kernel_udfs_n_features"]) == ("const=0.2", 2)
    assert np.isnan(a["kernel_udfs_published"])
    b = table.set_index("dataset").loc["b"]
    assert b["all_features"] == pytest.approx(50.0) and b["udfs"] == pytest.approx(55.0)
    assert b["kernel_udfs"] == pytest.approx(58.0) and b["kernel_udfs_published"] == 90.0
    md = kudfs.table1_markdown(table)
    assert "| b | 2 | 50.0 (60.0) | 55.0 (70.0) | 58.0 (90.0) | const=0.1, 2 |" in md
    assert "| a | 3 | 65.0 (-) | 70.0 (-) | 85.0 (-) | const=0.2, 2 |" in md


def test_table1_averages_repetitions(frames):
    udfs, kernel, dims, published = frames
    again = kernel.assign(value=kernel["value"] - 0.1)  # a second repetition, 0.1 lower everywhere
    table = kudfs.table1(udfs, pd.concat([kernel, again]), dims, published).set_index("dataset")
    assert table.loc["a", "kernel_udfs"] == pytest.approx(80.0)


def test_table1_needs_every_dimension_and_both_methods(frames):
    udfs, kernel, dims, published = frames
    with pytest.raises(ValueError, match="dimension"):
        kudfs.table1(udfs, kernel, {"a": 3}, published)
    with pytest.raises(ValueError, match="KernelUDFS"):
        kudfs.table1(udfs, kernel.assign(method="Other"), dims, published)


def test_published_file_and_dims(tmp_path):
    published = kudfs.read_published(papers.registry()["kudfs"].path("kudfs_table1.csv"))
    registry = yaml.safe_load((ROOT / "config/datasets.yaml").read_text())["datasets"]
    assert list(published.index) == ["thyroid", "german", "diabetis", "wdbc", "ionosphere", "spect"]
    assert set(published.index) <= set(registry)
    assert published.loc["spect", "kernel_udfs"] == 84.2 and published.loc["german", "all_features"] == 53.6
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"dataset": "x", "n_features": 7, "n_samples": 3}))
    assert kudfs.read_dims([path]) == {"x": 7}


# ---------------------------------------------------------------- Fig. 2 curves and claims


@pytest.fixture
def competitors():
    pca = metric_rows("a", "KernelPCA", "", [0.70, 0.72, 0.75, 0.99]).drop(columns="params")
    kkm = pd.DataFrame({"method": ["KernelKMeans"], "dataset": "a", "n_features": pd.array([pd.NA], dtype="Int64"),
                        "metric": "kmeans_acc", "value": [0.77]})
    return pd.concat([pca, kkm], ignore_index=True)


def test_fig2_curves_tune_per_count(frames, competitors):
    _, kernel, dims, _ = frames
    curves = kudfs.fig2_curves(kernel[kernel["dataset"] == "a"], competitors, dims, labels={"c1": "g=1"})
    ours = curves[curves["method"] == "KernelUDFS"].set_index("n_features")
    assert list(ours.index) == [1, 2, 3]
    assert list(ours["acc"]) == pytest.approx([0.80, 0.85, 0.70])
    assert list(ours["setting"]) == ["g=1", "c2", "g=1"]
    pca = curves[curves["method"] == "KernelPCA"]
    assert list(pca["n_features"]) == [1, 2, 3]  # count 4 > d dropped
    kkm = curves[curves["method"] == "KernelKMeans"]
    assert len(kkm) == 1 and kkm["n_features"].isna().all() and kkm["acc"].iloc[0] == 0.77


def test_claims_verdicts(frames, competitors):
    udfs, kernel, dims, published = frames
    table = kudfs.table1(udfs, kernel, dims, published)
    assert kudfs.claim_table1(table)["holds"]  # a: 85 > 70, 65; b: 58 > 55, 50
    assert not kudfs.claim_table1(table.assign(udfs=table["kernel_udfs"]))["holds"]  # a tie is not a win

    curves = kudfs.fig2_curves(kernel[kernel["dataset"] == "a"], competitors, dims)
    fig2 = kudfs.claim_fig2(curves)
    assert fig2["holds"] and "a: 85.0 vs Kernel PCA 75.0, Kernel K-means 77.0" in fig2["evidence"]
    worse = curves.assign(acc=np.where(curves["method"] == "KernelKMeans", 0.9, curves["acc"]))
    assert not kudfs.claim_fig2(worse)["holds"]

    m = np.arange(1, 11)
    ratios = pd.DataFrame({"n_features": m, "ordered": 0.5, "unordered": 0.6, "all_features": 0.58})
    assert kudfs.claim_fig1(ratios, "s")["holds"]  # 0.5 <= 0.9 * 0.58
    assert not kudfs.claim_fig1(ratios.assign(ordered=0.55), "s")["holds"]
    late = ratios.assign(ordered=np.where(m <= kudfs.FIRST_FEW, 0.7, 0.1))  # small only after the first few
    assert not kudfs.claim_fig1(late, "s")["holds"]

    md = kudfs.claims_markdown([kudfs.claim_table1(table), kudfs.claim_fig1(late, "s")])
    assert md.count("| holds |") == 1 and md.count("| does not hold |") == 1


# ---------------------------------------------------------------- figures


def test_figures_draw_and_save(tmp_path, frames, competitors):
    from ufskit.plots import save_figure

    m = np.arange(1, 21)
    curve = pd.DataFrame({"n_features": m, "ordered": 0.4 + m / 100, "unordered": 0.6, "all_features": 0.58})
    fig = kudfs.figure1({"gamma=1": curve, "gamma=0.001": curve.assign(ordered=0.7)}, "ionosphere")
    ax = fig.axes[0]
    assert len(ax.get_lines()) == 4 and "ionosphere" in fig.get_suptitle()
    assert ax.get_xlabel() and ax.get_ylabel() and len(fig.legends[0].get_texts()) == 4
    save_figure(fig, tmp_path / "f1.png", tmp_path / "f1.pdf")
    assert (tmp_path / "f1.png").stat().st_size > 0 and (tmp_path / "f1.pdf").read_bytes()[:4] == b"%PDF"
    with pytest.raises(ValueError, match="share one kernel"):
        kudfs.figure1({"x": curve, "y": curve.assign(unordered=0.9)}, "ionosphere")

    _, kernel, dims, published = frames
    curves = kudfs.fig2_curves(kernel[kernel["dataset"] == "a"], competitors, dims)
    fig = kudfs.figure2(curves, published)
    (ax,) = fig.axes
    assert ax.get_title() == "a" and len(ax.get_lines()) == 3  # ours, Kernel PCA, Kernel K-means
    assert {t.get_text() for t in fig.legends[0].get_texts()} == {
        "kernel UDFS (tuned)", "Kernel PCA", "Kernel K-means (all features)"}
