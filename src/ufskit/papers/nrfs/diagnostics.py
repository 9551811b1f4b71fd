"""Why NRFS's Table I claim fails where it does: the spectrum NRFS regresses on, and NRFS with an oracle target.

NRFS (step 7) regresses each feature's local similarities on the global spectra Y of the similarity graph
on all features, the graph the spectral baselines (LS, SPEC, MCFS, NDFS) also start from. Two readings
show whether a synthetic set lets NRFS find f1-f4 while the baselines fail:

* ``spectrum_table``: the graph's smallest eigenpairs of L_sym and, per eigenvector, the share of its
  variance the clusters explain (R^2 on the cluster indicators). Where the clusters explain little of
  the spectrum, the baselines find no cluster structure, and neither does NRFS's target.
* ``oracle_runs``: the NRFS selector with its target Y replaced by the (orthonormal) cluster indicators,
  the best target a graph could give; it shows how much of the failure is the target's.

docs/fidelity/nrfs-paper.md reads the numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...graph import pairwise_sq_dists
from ...plots import finish, panel_grid
from ...runs import fit_selector, to_selection
from ...seeds import derive_seed
from ...selectors.nrfs import adaptive_sigma, global_similarity, global_spectra
from ...tables import markdown_table
from ...validation import auto_or_int

EIGEN_PER_CLUSTER = 2  # the spectrum table shows 2 c eigenpairs: NRFS's c and the next c


def cluster_indicators(y) -> np.ndarray:
    """n x c orthonormal cluster indicators: column k is 1 / sqrt(n_k) on the members of cluster k, else 0."""
    _, labels = np.unique(np.asarray(y), return_inverse=True)
    F = np.eye(labels.max() + 1)[labels]
    return F / np.sqrt(F.sum(axis=0))


def cluster_r2(V, y) -> np.ndarray:
    """R^2 of each column of V regressed on the cluster indicators (with intercept): the share of its variance
    between the clusters' means; NaN for a constant column."""
    V = np.asarray(V, dtype=np.float64)
    _, labels = np.unique(np.asarray(y), return_inverse=True)
    counts = np.bincount(labels)
    means = np.stack([np.bincount(labels, weights=v) / counts for v in V.T], axis=1)
    total = ((V - V.mean(axis=0)) ** 2).sum(axis=0)
    residual = ((V - means[labels]) ** 2).sum(axis=0)
    varies = total > 1e-12 * (V**2).sum(axis=0)  # a constant column up to round-off has no variance to explain
    return np.where(varies, 1.0 - residual / np.where(varies, total, 1.0), np.nan)


def graph_spectrum(X, n_clusters: int, n_eigen: int, *, n_neighbors: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_eigen`` smallest eigenpairs (ascending) of L_sym on NRFS's global graph of X: Gaussian weights
    of the adaptive width (round(n / n_clusters) nearest instances) on the symmetric ``n_neighbors``-NN graph
    (None: all pairs), as ``NRFS`` steps 1-3 build it."""
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if not 1 <= n_eigen < n:
        raise ValueError(f"n_eigen={n_eigen} must be in [1, n_samples - 1 = {n - 1}].")
    D2 = pairwise_sq_dists(X)
    sigma = adaptive_sigma(D2, min(max(1, round(n / n_clusters)), n - 1))
    return global_spectra(global_similarity(X, D2, "gaussian", sigma, n_neighbors), n_eigen)


def spectrum_table(X, y, informative, params: dict, *, n_eigen: int) -> pd.DataFrame:
    """Per graph (all features; the ``informative`` ones only) and eigenvector: eigenvalue, R^2 on the clusters
    of ``y`` and whether NRFS's target holds it (the first c, or the next c without the trivial spectrum).

    ``params``: the NRFS setting, whose ``n_neighbors`` (NRFS's "auto": min(5, n - 1)) and
    ``trivial_spectrum`` shape the graph and the target.
    """
    c = int(np.unique(y).size)
    n_neighbors = params.get("n_neighbors", "auto")
    if n_neighbors is not None:
        n_neighbors = auto_or_int(n_neighbors, "n_neighbors", min(5, len(y) - 1))
    first = 1 if params.get("trivial_spectrum", True) else 2
    rows = []
    for graph, columns in (("all features", slice(None)), ("informative only", list(informative))):
        values, vectors = graph_spectrum(np.asarray(X)[:, columns], c, n_eigen, n_neighbors=n_neighbors)
        r2 = cluster_r2(vectors, y)
        # L_sym is positive semi-definite: an eigenvalue below 0 is round-off
        rows += [{"graph": graph, "index": k + 1, "eigenvalue": max(float(values[k]), 0.0), "cluster_r2": float(r2[k]),
                  "in_target": first <= k + 1 < first + c} for k in range(n_eigen)]
    return pd.DataFrame(rows)


def spectrum_figure(table: pd.DataFrame, *, protocol: str = "full"):
    """One panel per dataset: each eigenvector's R^2 on the clusters against its eigenvalue, per graph; NRFS's
    target filled, the next eigenvectors hollow."""
    datasets = list(dict.fromkeys(table["dataset"]))
    fig, axes = panel_grid(len(datasets), ncols=2)
    for ax, dataset in zip(axes, datasets):
        for (graph, rows), colour in zip(table[table["dataset"] == dataset].groupby("graph", sort=False),
                                         ("tab:red", "tab:blue")):
            ax.plot(rows["eigenvalue"], rows["cluster_r2"], color=colour, lw=0.8, alpha=0.5)
            for in_target, face in ((True, colour), (False, "none")):
                part = rows[rows["in_target"] == in_target]
                ax.scatter(part["eigenvalue"], part["cluster_r2"], edgecolors=colour, facecolors=face, s=24,
                           label=f"{graph}{', NRFS target' if in_target else ''}")
        ax.set(title=dataset, xlabel="eigenvalue of L_sym", ylabel="R^2 on the clusters", ylim=(-0.05, 1.05))
    return finish(fig, axes, title="NRFS Table I diagnostics: how much of each eigenvector the clusters explain",
                  protocol=protocol, legend_axes=axes[:1])


def oracle_runs(X, y, informative, spec: dict, *, count: int, seed: int) -> pd.DataFrame:
    """NRFS (``spec``: {selector, params}) fitted on X with the cluster indicators of ``y`` as its target, once
    per DPS fold (the only random step; one fit without sampling): per run the fold, the ``count`` features
    picked and how many of them are ``informative``."""
    n_classes = int(np.unique(y).size)
    target = cluster_indicators(y)
    rows, fold, n_folds = [], 0, 1
    while fold < n_folds:
        params = {**spec, "params": {**spec["params"], "fold": fold}}
        selector, seconds = fit_selector(params, X, seed=derive_seed(seed, fold), n_classes=n_classes, target=target)
        picked = sorted(int(f) for f in to_selection(selector, seconds, params, X, [count]).features(count))
        rows.append({"target": "indicators", "run": fold, "fold": selector.fold_, "selected": " ".join(map(str, picked)),
                     "n_informative": len(set(picked) & set(informative))})
        n_folds = 1 if selector.fold_ is None else 2 ** selector.dps_levels_
        fold += 1
    return pd.DataFrame(rows)


def spectra_runs(table1_runs: pd.DataFrame, informative) -> pd.DataFrame:
    """NRFS's own runs on all instances from Table I's runs (``selected``), in ``oracle_runs``' columns."""
    runs = table1_runs[table1_runs["variant"] == "all"]
    picked = [set(map(int, s.split())) for s in runs["selected"]]
    return pd.DataFrame({"target": "spectra", "run": runs["run"].to_numpy(), "fold": np.nan,
                         "selected": runs["selected"].to_numpy(),
                         "n_informative": [len(p & set(informative)) for p in picked]})


def oracle_summary(runs: pd.DataFrame, n_informative: int) -> pd.DataFrame:
    """Per dataset and target: runs, mean informative features picked and the share of runs picking all."""
    g = runs.assign(all_informative=runs["n_informative"] == n_informative).groupby(["dataset", "target"], sort=False)
    return g.agg(runs=("run", "size"), mean_informative=("n_informative", "mean"),
                 all_informative_share=("all_informative", "mean")).reset_index()


def spectrum_markdown(table: pd.DataFrame) -> str:
    """The spectrum table per dataset and graph: eigenvalues with the clusters' R^2, NRFS's target marked."""
    lines = ["# NRFS Table I diagnostics: spectrum of the similarity graph",
             "",
             "The smallest eigenvalues of L_sym on NRFS's global graph (Gaussian, adaptive width, symmetric kNN), "
             "on all features (what NRFS and the spectral baselines use) and on the informative f1-f4 only; "
             "R^2: the share of the eigenvector's variance explained by the cluster indicators "
             "(1: the eigenvector is constant within each cluster, 0: it is blind to them). "
             "'target': the eigenvectors NRFS regresses on (Y).", ""]
    rows = [[r.dataset, r.graph, r.index, f"{r.eigenvalue:.4f}", "–" if pd.isna(r.cluster_r2) else f"{r.cluster_r2:.3f}",
             "yes" if r.in_target else ""] for r in table.itertuples()]
    return "\n".join(lines) + "\n" + markdown_table(rows, ["dataset", "graph", "k", "eigenvalue", "R^2 clusters",
                                                           "target"])


def oracle_markdown(summary: pd.DataFrame, count: int, n_informative: int) -> str:
    """The oracle reading beside NRFS's own runs, per dataset."""
    lines = ["# NRFS Table I diagnostics: NRFS with an oracle target",
             "",
             f"NRFS picking {count} features with its regression target Y (Eq. 8) replaced by the cluster indicators "
             "('indicators', one run per DPS fold), beside its own target, the global spectra ('spectra', Table I's "
             f"runs on all instances): mean number of the {n_informative} informative features picked, and the "
             f"share of runs picking all {n_informative}.", ""]
    rows = [[r.dataset, r.target, r.runs, f"{r.mean_informative:.2f} of {n_informative}",
             f"{r.all_informative_share:.2f}"] for r in summary.itertuples()]
    return "\n".join(lines) + "\n" + markdown_table(rows, ["dataset", "target", "runs", "informative picked",
                                                           f"all {n_informative}"])
