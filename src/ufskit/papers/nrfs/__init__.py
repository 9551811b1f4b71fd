"""NRFS paper (Huang et al., ICDM 2014): Table I runs, NJW, NMI curves, tables, figures and claims.

Plain functions of arrays and frames; the workflow's ``scripts/nrfs_*.py`` call them.
Choices the paper leaves open are in docs/fidelity/nrfs-paper.md.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

# matplotlib, scipy.linalg and ..selectors.nrfs (scikit-learn) are imported by the functions using them (start-up)
from ... import metrics as M
from ...experiments import settings_by_slug
from ...graph import pairwise_sq_dists
from ...plots import count_axis, finish, method_style, panel_grid, plot_line, shade_band
from ...runs import fit_run
from ...seeds import derive_seed
from ...tables import markdown_table
from .. import (
    NOT_RUN,
    REFERENCE,
    added_styles,
    extra_labels,
    extra_note,
    read_published,  # noqa: F401  (re-exported for the scripts)
    shown_label,
)
from .. import verdict as _verdict
from ..benchmark_stats import random_band
from ..spec import PaperSpec, Published, melt_columns, reader_rows

PAPER_Q = 50  # Sec. VI-A: q = 50 for Fig. 5 and Fig. 7
REFERENCES = ("K-means", "NJW")  # Table I rows that cluster all features (no selection)
TABLE1_ORDER = ("K-means", "NJW", "SPEC", "LS", "MCFS", "NDFS", "NRFS")
FIG5_ORDER = ("NRFS", "NRFS-2", "MCFS", "LS", "NDFS", "SPEC")
TIMING_ORDER = ("SPEC", "LS", "MCFS", "NRFS", "NRFS-2", "NDFS")  # Fig. 7's bar order
VARIANTS = ("all", "normal")
SYNTHETIC = "nrfs_synthetic"  # Table I's data: the generator calibrated to the baselines (issue 22)
SYNTHETIC_FIGURE = "nrfs_synthetic_fig"  # the same generator with Fig. 1's axes read at face value
# config `role` of its experiments: the synthetic data (Table I, Fig. 1 and 4, the sensitivity sweep; one per report)
# and the real datasets (Fig. 5-7, Table II; any number per report)
ROLE_SYNTHETIC, ROLE_REAL = ROLES = ("synthetic", "real")


# ---- clustering ---------------------------------------------------------------------------


def njw_embedding(X, n_clusters: int, *, sigma=None) -> np.ndarray:
    """Steps 1-4 of Ng-Jordan-Weiss spectral clustering (NIPS 2001): the row-normalised spectral embedding.

    A_ij = exp(-||x_i - x_j||^2 / (2 sigma^2)) with A_ii = 0, L = D^-1/2 A D^-1/2, the
    ``n_clusters`` largest eigenvectors of L as columns, rows scaled to unit length.
    ``sigma=None`` takes NRFS's adaptive width (mean distance to the round(n / c)
    nearest instances, Sec. VI-A).
    """
    import scipy.linalg

    from ...selectors.nrfs import adaptive_sigma

    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    if not 1 <= n_clusters < n:
        raise ValueError(f"n_clusters={n_clusters} must be in [1, n_samples - 1 = {n - 1}].")
    D2 = pairwise_sq_dists(X)
    if sigma is None:
        sigma = adaptive_sigma(D2, min(max(1, round(n / n_clusters)), n - 1))
    if not sigma > 0:
        raise ValueError(f"sigma must be positive, got {sigma!r}.")
    A = np.exp(-D2 / (2.0 * sigma**2))
    np.fill_diagonal(A, 0.0)
    inv_sqrt = 1.0 / np.sqrt(np.maximum(A.sum(axis=1), np.finfo(float).tiny))
    L = A * inv_sqrt[:, None] * inv_sqrt[None, :]
    _, V = scipy.linalg.eigh(L, subset_by_index=[n - n_clusters, n - 1])
    return V / np.maximum(np.linalg.norm(V, axis=1, keepdims=True), np.finfo(float).tiny)


def njw_labels(X, n_clusters: int, *, sigma=None, n_init: int = 100, max_iter: int = 100, random_state) -> np.ndarray:
    """NJW spectral clustering: K-means (best WCSS of ``n_init`` starts) on ``njw_embedding``."""
    return M.kmeans_labels(njw_embedding(X, n_clusters, sigma=sigma), n_clusters, n_init=n_init,
                           max_iter=max_iter, random_state=random_state)


def runs_per_rep(total_runs: int, reps: int) -> int:
    """K-means runs per selector run so that every method gets ``total_runs`` (a deterministic selector: reps = 1)."""
    if reps < 1 or total_runs % reps:
        raise ValueError(f"{reps} selector runs cannot share {total_runs} evaluation runs evenly.")
    return total_runs // reps


def fit_subset(spec: dict, X, count: int, *, n_classes: int, seed: int) -> np.ndarray:
    """Fit ``spec`` ({selector, params}) on X and return its ``count`` features (per-count subsets where it has
    them)."""
    return fit_run(X, spec, seed, n_classes=n_classes, n_features=[count]).features(count)


def table1_runs(X, y, noise_indices, method: str, *, count: int, spec=None, selections=(), total_runs: int,
                kmeans: dict, seed: int) -> pd.DataFrame:
    """Table I's runs of one method: NMI on the normal instances, per variant and run.

    Variant "all": the method sees every instance (normal and noisy); "normal": the noisy
    instances are removed first. Either way the clustering covers the variant's instances
    and NMI is scored on the normal ones. ``method`` in ``REFERENCES`` clusters all features
    (K-means, or NJW: K-means on its spectral embedding, computed once per variant); otherwise
    ``spec`` = {selector, params} and ``selections`` holds the ``count``-feature subsets of the
    selector's runs on all instances (the workflow's selections); the "normal" variant refits the
    selector on the normal instances, once per run in ``selections``. Each selector run gets
    total_runs / runs K-means runs.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    normal = np.ones(X.shape[0], dtype=bool)
    normal[np.asarray(noise_indices, dtype=int)] = False
    n_clusters = int(np.unique(y[normal]).size)
    opts = {"n_init": kmeans.get("n_init", 100), "max_iter": kmeans.get("max_iter", 100)}
    rows = []
    for variant in VARIANTS:
        keep = np.ones_like(normal) if variant == "all" else normal
        Xv, yv, score = X[keep], y[keep], normal[keep]
        if method in REFERENCES:
            space = njw_embedding(Xv, n_clusters) if method == "NJW" else Xv
            subsets = [None]
        elif spec is None or not len(selections):
            raise ValueError(f"method {method!r}: a selector needs its spec and at least one selection.")
        elif variant == "all":
            subsets = [np.asarray(s)[:count] for s in selections]
        else:
            subsets = [fit_subset(spec, Xv, count, n_classes=n_clusters, seed=derive_seed(seed, "normal", r))
                       for r in range(len(selections))]
        per = runs_per_rep(total_runs, len(subsets))
        for r, feats in enumerate(subsets):
            Xs = space if feats is None else Xv[:, feats]
            for k in range(per):
                run = r * per + k
                labels = M.kmeans_labels(Xs, n_clusters, random_state=derive_seed(seed, variant, run), **opts)
                rows.append({"method": method, "variant": variant, "run": run,
                             "nmi": M.nmi(yv[score], labels[score], average_method=kmeans.get("nmi_average", "sqrt")),
                             "selected": "" if feats is None else " ".join(map(str, sorted(int(f) for f in feats)))})
    return pd.DataFrame(rows)


# ---- tables ---------------------------------------------------------------------------------



def _ordered(frame: pd.DataFrame, column: str, order) -> pd.DataFrame:
    rank = {m: i for i, m in enumerate(order)}
    return frame.sort_values(column, key=lambda s: s.map(lambda m: rank.get(m, len(rank)))).reset_index(drop=True)


def _table1_stats(runs: pd.DataFrame, target: str) -> pd.DataFrame:
    """Per method: mean and std NMI per variant, runs, share of runs selecting exactly ``target``."""
    stats = runs.groupby(["method", "variant"])["nmi"].agg(["mean", "std", "count"]).unstack("variant")
    out = pd.DataFrame({
        "method": stats.index,
        "nmi_all": stats[("mean", "all")].to_numpy(),
        "nmi_all_std": stats[("std", "all")].to_numpy(),
        "nmi_normal": stats[("mean", "normal")].to_numpy(),
        "nmi_normal_std": stats[("std", "normal")].to_numpy(),
        "runs": stats[("count", "all")].to_numpy().astype(int),
    })
    picked = runs[runs["selected"] != ""].groupby(["method", "variant"])["selected"].apply(lambda s: (s == target).mean())
    for variant in VARIANTS:
        out[f"informative_share_{variant}"] = out["method"].map(lambda m, v=variant: picked.get((m, v), np.nan))
    return out


def table1(runs: pd.DataFrame, published: pd.DataFrame, informative=(0, 1, 2, 3)) -> pd.DataFrame:
    """Mean NMI per method and variant (with std and runs), the published values beside, and how often f1-f4
    were picked.

    The rows are those of the calibrated data (``runs["dataset"] == SYNTHETIC``, or every run when
    there is no ``dataset`` column); runs on the figure reading (``SYNTHETIC_FIGURE``) add the columns
    ``nmi_all_fig``, ``nmi_normal_fig`` and ``informative_share_all_fig`` (NaN when not run).
    """
    target = " ".join(map(str, sorted(informative)))
    dataset = runs["dataset"] if "dataset" in runs else pd.Series(SYNTHETIC, index=runs.index)
    main = runs[dataset == SYNTHETIC]
    if main.empty:
        raise ValueError(f"Table I: no runs on {SYNTHETIC!r} (got {sorted(dataset.unique())}).")
    out = _table1_stats(main, target)
    fig = runs[dataset == SYNTHETIC_FIGURE]
    fig_stats = (_table1_stats(fig, target) if len(fig) else pd.DataFrame(columns=["method"])).set_index("method")
    for column in ("nmi_all", "nmi_normal", "informative_share_all"):
        out[f"{column}_fig"] = out["method"].map(fig_stats[column]) if column in fig_stats else np.nan
    pub = published.set_index("method")
    out["published_nmi_all"] = out["method"].map(pub["nmi_all_instances"])
    out["published_nmi_normal"] = out["method"].map(pub["nmi_normal_instances"])
    return _ordered(out, "method", TABLE1_ORDER)


def _fmt(value, digits: int = 4) -> str:
    return "–" if value is None or pd.isna(value) else f"{value:.{digits}f}"


def table1_markdown(table: pd.DataFrame, count: int) -> str:
    lines = [f"# NRFS Table I: synthetic data, {count} selected features, mean NMI on the normal instances",
             "",
             "'all': the method sees all instances (normal and noisy); "
             "'normal': the noisy instances are removed first.",
             "f1-f4: share of the runs whose selected features are exactly the four informative ones.",
             f"Main columns: the generator calibrated to the baselines' published NMI ({SYNTHETIC}); "
             f"'fig. reading': Fig. 1's axes read at face value ({SYNTHETIC_FIGURE}), NMI all / normal / f1-f4 "
             "(all).",
             ""]
    rows = [[shown_label(r.method, table), f"{_fmt(r.nmi_all)} ± {_fmt(r.nmi_all_std, 3)}", _fmt(r.published_nmi_all),
             f"{_fmt(r.nmi_normal)} ± {_fmt(r.nmi_normal_std, 3)}", _fmt(r.published_nmi_normal), r.runs,
             _fmt(r.informative_share_all, 2), _fmt(r.informative_share_normal, 2),
             f"{_fmt(r.nmi_all_fig)} / {_fmt(r.nmi_normal_fig)} / {_fmt(r.informative_share_all_fig, 2)}"]
            for r in table.itertuples()]
    header = ["method", "NMI all", "published", "NMI normal", "published", "runs", "f1-f4 (all)", "f1-f4 (normal)",
              "fig. reading"]
    return "\n".join(lines) + "\n" + markdown_table(rows, header) + extra_note(table)


def table2_markdown(summaries: dict, published: pd.DataFrame) -> str:
    """Table II: n, d, classes of each dataset as prepared, the paper's numbers beside."""
    pub = published.set_index("dataset")
    rows = []
    for name, s in summaries.items():
        p = pub.loc[name] if name in pub.index else None
        cell = {key: (f"{s[field]}" if p is None else f"{s[field]} ({int(p[key])})")
                for key, field in (("instances", "n_samples"), ("features", "n_features"), ("clusters", "n_classes"))}
        steps = ", ".join(step.get("step", "?") for step in s.get("preprocessing", [])) or "none"
        rows.append([name, cell["instances"], cell["features"], cell["clusters"], steps])
    return ("# NRFS Table II: datasets as prepared (paper's values in parentheses)\n\n"
            + markdown_table(rows, ["dataset", "#instances", "#features", "#clusters", "preprocessing"]))


# ---- curves from the workflow's metrics tables ----------------------------------------------


def param_columns(experiments: dict) -> pd.DataFrame:
    """(experiment, method, params slug) -> q and max_nonzero of each configured run, and whether the method is
    the chance reference (selector Random: a band in Fig. 5, no curve, bar or claim), from the config."""
    rows = []
    for name, exp in experiments.items():
        for method in exp["methods"]:
            for slug, p in settings_by_slug(exp, method).items():
                rows.append({"experiment": name, "method": method, "params": slug,
                             "reference": exp["methods"][method]["selector"] == REFERENCE,
                             "q": p.get("n_neighbors_features", np.nan),
                             # a list of cardinalities is one run whose subsets follow min{M, n} already
                             "max_nonzero": (np.nan if isinstance(p.get("max_nonzero"), list)
                                             else p.get("max_nonzero", np.nan))})
    return pd.DataFrame(rows, columns=["experiment", "method", "params", "reference", "q", "max_nonzero"])


def all_methods(experiments: dict) -> dict:
    """Label -> method block of every method of the ``experiments`` (the real experiments Figs. 5-7 read)."""
    return {label: spec for exp in experiments.values() for label, spec in exp["methods"].items()}


def _with_params(frame: pd.DataFrame, params: pd.DataFrame) -> pd.DataFrame:
    out = frame.merge(params, on=["experiment", "method", "params"], how="left", validate="many_to_one")
    if out["q"].isna().all() and "NRFS" in set(out["method"]):
        raise ValueError("NRFS rows without a q: the parameter table does not match the metrics.")
    return out


def _mcfs_cardinality_rows(frame: pd.DataFrame, n_samples: dict) -> pd.Series:
    """Rows of MCFS runs to keep: at count M, the run with min{M, n} non-zeros (Sec. VI-A).

    A run whose ``max_nonzero`` is at least n stands for n (the LARS path ends at
    about n non-zeros); with a single MCFS setting per dataset that setting is used.
    """
    keep = pd.Series(True, index=frame.index)
    mcfs = frame[frame["method"] == "MCFS"]
    for (dataset, count), grp in mcfs.groupby(["dataset", "n_features"]):
        if grp["max_nonzero"].nunique(dropna=False) <= 1:
            continue
        n = n_samples[dataset]
        want = min(int(count), n)
        card = grp["max_nonzero"].astype(float)
        exact = card == want
        chosen = exact if exact.any() else (card >= n) & (card == card[card >= n].min())
        if not chosen.any():
            raise ValueError(f"MCFS on {dataset} at {count} features: no run with max_nonzero = min(M, n) = {want}.")
        keep[grp.index[~chosen.to_numpy()]] = False
    return keep


def nmi_curves(frame: pd.DataFrame, params: pd.DataFrame, n_samples: dict) -> pd.DataFrame:
    """Fig. 5: mean K-means NMI per dataset, method and count (NRFS at q = 50, MCFS at min{M, n}; no Random)."""
    f = _with_params(frame[frame["metric"] == "kmeans_nmi"], params)
    f = f[f["reference"].ne(True) & ((f["method"] != "NRFS") | (f["q"] == PAPER_Q))]
    return _mean_nmi(f[_mcfs_cardinality_rows(f, n_samples)])


def _mean_nmi(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean NMI and runs per dataset, method and count of K-means NMI ``rows`` (and whether any is beyond_ranked)."""
    agg = {"nmi": ("value", "mean"), "runs": ("value", "count")}
    if "beyond_ranked" in rows:  # a count past the method's truly ranked features in any run (ringed in the figure)
        agg["beyond_ranked"] = ("beyond_ranked", "any")
    out = rows.groupby(["dataset", "method", "n_features"]).agg(**agg).reset_index()
    out["n_features"] = out["n_features"].astype(int)
    return out


def added_curves(frame: pd.DataFrame, methods: dict) -> pd.DataFrame:
    """The Fig. 5 curves of the methods added by ``extra_methods`` (config ``methods``), ``in_paper`` False: mean
    K-means NMI per dataset, method and count over all their runs, as Fig. 5 draws them; Fig. 6 draws them beside
    NRFS's q curves. No rows without an added method."""
    rows = frame[(frame["metric"] == "kmeans_nmi") & frame["method"].isin(extra_labels(methods))]
    return _mean_nmi(rows).assign(in_paper=False)


def fig5_values(curves: pd.DataFrame) -> pd.DataFrame:
    """Fig. 5's values per dataset and method (mean NMI over the counts) for the statistics over its datasets."""
    mean = curves.groupby(["dataset", "method"], sort=False)["nmi"].mean().rename("value").reset_index()
    return mean.assign(metric="kmeans_nmi")[["dataset", "method", "metric", "value"]]


def nmi_band(frame: pd.DataFrame, params: pd.DataFrame) -> pd.DataFrame:
    """Fig. 5's band: per dataset and count the 5-95 % quantiles of the Random methods' NMI over their draws."""
    f = _with_params(frame[frame["metric"] == "kmeans_nmi"], params)
    labels = sorted(set(f.loc[f["reference"].eq(True), "method"]))
    bands = [random_band(f, label) for label in labels]
    return pd.concat(bands, ignore_index=True) if bands else None


def q_curves(frame: pd.DataFrame, params: pd.DataFrame) -> pd.DataFrame:
    """Fig. 6: NRFS's mean NMI per dataset, q and count, for datasets run at two or more q."""
    f = _with_params(frame[(frame["metric"] == "kmeans_nmi") & (frame["method"] == "NRFS")], params)
    out = f.groupby(["dataset", "q", "n_features"])["value"].agg(nmi="mean", runs="count").reset_index()
    several = out.groupby("dataset")["q"].transform("nunique") > 1
    out = out[several].astype({"q": int, "n_features": int})
    return out.reset_index(drop=True)


def fit_times(frame: pd.DataFrame, params: pd.DataFrame) -> pd.DataFrame:
    """Fig. 7: mean fit seconds per dataset and method (NRFS at q = 50; no Random)."""
    f = _with_params(frame[frame["metric"] == "fit_seconds"], params)
    f = f[f["reference"].ne(True) & ((f["method"] != "NRFS") | (f["q"] == PAPER_Q))]
    return f.groupby(["dataset", "method"])["value"].agg(seconds="mean", runs="count").reset_index()


def kmeans_all_features(X, y, *, runs: int, kmeans: dict, seed: int) -> pd.DataFrame:
    """The Fig. 5 reference: K-means NMI on all features, one row per run (best WCSS of n_init starts each)."""
    X = np.asarray(X, dtype=np.float64)
    k = int(np.unique(y).size)
    rows = []
    for run in range(runs):
        labels = M.kmeans_labels(X, k, n_init=kmeans.get("n_init", 100), max_iter=kmeans.get("max_iter", 300),
                                 random_state=derive_seed(seed, run))
        rows.append({"run": run, "nmi": M.nmi(y, labels, average_method=kmeans.get("nmi_average", "sqrt"))})
    return pd.DataFrame(rows)


# ---- figures ----------------------------------------------------------------------------------

CLUSTER_COLORS = ("tab:red", "tab:blue", "tab:olive", "tab:green")
NOISE_COLOR = "tab:purple"


def _scatter_planes(X, y, noisy, title: str, highlight=None, planes=((0, 1), (2, 3), (4, 5)), protocol: str = "full"):
    fig, axes = panel_grid(len(planes), ncols=len(planes), panel_size=(3.6, 3.2))
    normal = np.ones(X.shape[0], dtype=bool)
    normal[noisy] = False
    for ax, (a, b) in zip(axes, planes):
        for c in np.unique(y[normal]):
            rows = normal & (y == c)
            ax.scatter(X[rows, a], X[rows, b], s=4, color=CLUSTER_COLORS[int(c) % 4], label=f"cluster {c + 1}")
        ax.scatter(X[noisy, a], X[noisy, b], s=10, marker="x", color=NOISE_COLOR, label="noisy instances")
        if highlight is not None:
            ax.scatter(X[highlight, a], X[highlight, b], s=28, facecolors="none", edgecolors="black",
                       linewidths=0.6, label="representatives")
        ax.set_xlabel(f"f{a + 1}")
        ax.set_ylabel(f"f{b + 1}")
        ax.set_title(f"f{a + 1} vs f{b + 1}")
    return finish(fig, axes, title=title, protocol=protocol, legend_axes=axes[:1])


def figure1(X, y, noisy, *, protocol: str = "full"):
    """Fig. 1: the synthetic data in the (f1, f2), (f3, f4) and (f5, f6) planes, noisy instances in purple."""
    n_clusters = len(np.unique(np.delete(y, noisy)))
    title = (f"Fig. 1: synthetic data ({X.shape[0]} instances, {X.shape[1]} features, {n_clusters} clusters, "
             f"{len(noisy)} noisy instances in purple)")
    return _scatter_planes(X, y, noisy, title, protocol=protocol)


def figure4(X, y, noisy, representatives, removed, *, protocol: str = "full"):
    """Fig. 4: the representatives NRFS keeps (circled) after dropping the FDD-flagged instances."""
    true_removed = np.intersect1d(noisy, removed).size
    title = (f"Fig. 4: {len(representatives)} representatives (circled)\n"
             f"FDD removed {len(removed)} instances, {true_removed} of the {len(noisy)} noisy ones")
    return _scatter_planes(X, y, noisy, title, highlight=representatives, planes=((0, 1), (2, 3)), protocol=protocol)


def _panel_order(datasets, groups: dict):
    return sorted(datasets, key=lambda d: (groups.get(d, "") != "microarray", d))


def _panel_title(ax, dataset: str, groups: dict) -> None:
    ax.set_title(f"{groups.get(dataset, '')}: {dataset}".lstrip(": "))


def _counts_text(counts) -> str:
    counts = sorted({int(c) for c in counts})
    return ", ".join(map(str, counts)) if len(counts) <= 4 else f"{counts[0]}, {counts[1]}, ..., {counts[-1]}"


def figure5(curves: pd.DataFrame, kmeans_all: pd.DataFrame, groups: dict, *, band: pd.DataFrame | None = None,
            protocol: str = "full"):
    """Fig. 5: NMI against the number of selected features, one panel per dataset, all-feature K-means dashed,
    Random's 5-95 % band (``nmi_band``) shaded behind."""
    datasets = _panel_order(curves["dataset"].unique(), groups)
    added = added_styles(curves)
    fig, axes = panel_grid(len(datasets), ncols=4)
    for ax, dataset in zip(axes, datasets):
        if band is not None:
            shade_band(ax, band[band["dataset"] == dataset])
        sub = curves[curves["dataset"] == dataset]
        methods = [m for m in FIG5_ORDER if m in set(sub["method"])] + sorted(set(sub["method"]) - set(FIG5_ORDER))
        for layer, method in enumerate(methods):
            line = sub[sub["method"] == method].sort_values("n_features")
            plot_line(ax, line["n_features"], line["nmi"], shown_label(method, sub), layer,
                      beyond=line.get("beyond_ranked"), added=added.get(method))
        ref = kmeans_all[kmeans_all["dataset"] == dataset]["nmi"]
        if len(ref):
            ax.axhline(ref.mean(), color="black", linestyle="--", linewidth=1, label="K-means (all features)")
        count_axis(ax.xaxis, "# features")
        ax.set_ylabel("NMI")
        _panel_title(ax, dataset, groups)
    title = (f"Fig. 5: K-means NMI at {_counts_text(curves['n_features'])} selected features, "
             f"{len(datasets)} dataset{'s' * (len(datasets) > 1)}")
    return finish(fig, axes, title=title, protocol=protocol)


def figure6(qcurves: pd.DataFrame, groups: dict, *, added: pd.DataFrame | None = None, protocol: str = "full"):
    """Fig. 6: NRFS's NMI for each q, one panel per dataset.

    ``added``: the curves of methods added by ``extra_methods`` (``added_curves``), drawn after NRFS's on the
    panels of their datasets, marked not in the paper: they have no q, so they show where NRFS's q range stands
    against them.
    """
    from matplotlib import colormaps

    datasets = _panel_order(qcurves["dataset"].unique(), groups)
    added = added if added is not None else pd.DataFrame(columns=["dataset", "method", "n_features", "nmi"])
    styles = added_styles(added)
    fig, axes = panel_grid(max(1, len(datasets)), ncols=4)
    colours = colormaps["viridis"](np.linspace(0.0, 0.85, max(1, qcurves["q"].nunique())))
    for ax, dataset in zip(axes, datasets):
        sub = qcurves[qcurves["dataset"] == dataset]
        for layer, (q, line) in enumerate(sub.groupby("q")):
            line = line.sort_values("n_features")
            plot_line(ax, line["n_features"], line["nmi"], "NRFS", layer, color=colours[layer],
                      marker="os^Dv<>"[layer % 7], label=f"q={q}")
        mine = added[added["dataset"] == dataset]
        for layer, (method, line) in enumerate(mine.groupby("method", sort=False), sub["q"].nunique()):
            line = line.sort_values("n_features")
            plot_line(ax, line["n_features"], line["nmi"], shown_label(method, mine), layer, added=styles[method])
        count_axis(ax.xaxis, "# features")
        ax.set_ylabel("NMI")
        _panel_title(ax, dataset, groups)
    if not datasets:
        axes[0].text(0.5, 0.5, "no dataset was run at several q", ha="center", va="center")
    qs = ", ".join(map(str, sorted(qcurves["q"].unique())))
    return finish(fig, axes, title=f"Fig. 6: NRFS across feature-neighbourhood sizes q{' = ' + qs if qs else ''}",
                  protocol=protocol)


def figure7(times: pd.DataFrame, groups: dict, *, protocol: str = "full"):
    """Fig. 7: mean fit time of each algorithm, one panel per dataset (NRFS = NRFS-1, with sampling).

    Methods added by ``extra_methods`` (``in_paper`` False) are bars after the paper's, in their added colour,
    their labels marked not in the paper.
    """
    datasets = _panel_order(times["dataset"].unique(), groups)
    added = added_styles(times)
    fig, axes = panel_grid(len(datasets), ncols=4)
    for ax, dataset in zip(axes, datasets):
        sub = times[times["dataset"] == dataset].set_index("method")
        methods = [m for m in TIMING_ORDER if m in sub.index] + [m for m in added if m in sub.index]
        colors = [method_style(m, added=added.get(m))["color"] or "tab:gray" for m in methods]
        ax.bar(range(len(methods)), sub.loc[methods, "seconds"], color=colors)
        labels = [("NRFS-1" if m == "NRFS" else shown_label(m, times)) for m in methods]
        ax.set_xticks(range(len(methods)), labels, rotation=45, fontsize=7)
        ax.set_ylabel("seconds per fit")
        _panel_title(ax, dataset, groups)
    return finish(fig, axes, title="Fig. 7: running time (one thread per fit; NRFS-1 with sampling, NRFS-2 without)",
                  protocol=protocol, legend=False)


# ---- claims ---------------------------------------------------------------------------------


def claim_table1(table: pd.DataFrame) -> tuple[str, str]:
    nrfs = table[table["method"] == "NRFS"]
    others = table[table["method"] != "NRFS"]
    if nrfs.empty:
        return NOT_RUN, "NRFS missing from Table I."
    r = nrfs.iloc[0]
    picks = min(r.informative_share_all, r.informative_share_normal)
    nrfs_ok = picks == 1.0 and min(r.nmi_all, r.nmi_normal) >= 0.99
    worst = others[["nmi_all", "nmi_normal"]].max(axis=1)
    others_ok = bool((worst <= 0.50).all())
    text = (f"NRFS picks f1-f4 in {picks:.0%} of the runs (worst variant), NMI {r.nmi_all:.4f} (all) / "
            f"{r.nmi_normal:.4f} (normal); the other rows reach at most "
            + ", ".join(f"{m} {v:.3f}" for m, v in zip(others["method"], worst)) + " (published: <= 0.50).")
    if "nmi_all_fig" in table and table["nmi_all_fig"].notna().any():
        text += (" On Fig. 1's axes read at face value (nrfs_synthetic_fig), NMI (all) is "
                 + ", ".join(f"{m} {v:.3f}" for m, v in zip(table["method"], table["nmi_all_fig"])) + ".")
    return _verdict(nrfs_ok and others_ok, nrfs_ok), text


def claim_sampling(noisy, removed, representatives) -> tuple[str, str]:
    noisy = np.asarray(noisy)
    caught = np.intersect1d(noisy, removed).size
    bad_reps = np.intersect1d(noisy, representatives).size
    recall = caught / max(noisy.size, 1)
    text = (f"FDD removed {len(removed)} instances, {caught} of the {noisy.size} noisy ones ({recall:.0%}); "
            f"{bad_reps} of the {len(representatives)} representatives are noisy instances. "
            "Criterion: >= 90% of the noisy instances removed and <= 1% noisy representatives.")
    return _verdict(recall >= 0.9 and bad_reps <= 0.01 * len(representatives), recall >= 0.5), text


def _mean_over_counts(curves: pd.DataFrame) -> pd.DataFrame:
    return curves.groupby(["dataset", "method"])["nmi"].mean().unstack("method")


def claim_fig5(curves: pd.DataFrame, kmeans_all: pd.DataFrame, groups: dict) -> tuple[str, str]:
    means = _mean_over_counts(curves)
    means["K-means"] = kmeans_all.groupby("dataset")["nmi"].mean()
    rivals = [c for c in ("LS", "SPEC", "MCFS", "NDFS", "K-means") if c in means]
    if "NRFS" not in means or not rivals:
        return NOT_RUN, "NRFS or its competitors missing."
    best = means["NRFS"] >= means[rivals].max(axis=1)
    winners = ", ".join(d for d in means.index if best[d]) or "none"
    parts = [f"NRFS has the highest mean NMI (over the feature counts) on {int(best.sum())} of {len(best)} datasets "
             + f"({winners})."]
    margins_ok = []
    for group, mcfs_need, km_need in (("microarray", 0.10, 0.25), ("text", 0.25, 1.80)):
        ds = [d for d in means.index if groups.get(d) == group]
        if not ds:
            continue
        sub = means.loc[ds]
        gain_mcfs = float((sub["NRFS"] / sub["MCFS"] - 1).mean()) if "MCFS" in sub else np.nan
        gain_km = float((sub["NRFS"] / sub["K-means"] - 1).mean())
        margins_ok.append(gain_mcfs > mcfs_need and gain_km > km_need)
        parts.append(f"{group}: NRFS vs MCFS {gain_mcfs:+.1%} (paper: > +{mcfs_need:.0%}), vs all-feature K-means "
                     f"{gain_km:+.1%} (paper: > +{km_need:.0%}) on average.")
    table = means.round(3).reset_index().to_string(index=False)
    ok = bool(best.all()) and all(margins_ok)
    return _verdict(ok, bool(best.any()) or any(margins_ok)), " ".join(parts) + f"\n\n```\n{table}\n```"


def claim_fig6(qcurves: pd.DataFrame, tolerance: float = 0.05) -> tuple[str, str]:
    if qcurves.empty:
        return NOT_RUN, "no dataset was run at several q."
    means = qcurves.groupby(["dataset", "q"])["nmi"].mean().unstack("q")
    spread = means.max(axis=1) - means.min(axis=1)
    ranges = ", ".join(f"{d} {v:.3f}" for d, v in spread.items())
    text = f"Range of NRFS's mean NMI across q per dataset: {ranges} (criterion for 'stable': <= {tolerance})."
    return _verdict(bool((spread <= tolerance).all()), bool((spread <= tolerance).any())), text


def claim_fig7(times: pd.DataFrame) -> tuple[str, str]:
    total = times.pivot(index="dataset", columns="method", values="seconds").dropna(axis=0, how="any").sum()
    needed = {"NRFS", "NRFS-2", "MCFS", "NDFS"}
    if not needed <= set(total.index):
        return NOT_RUN, f"missing timings for {sorted(needed - set(total.index))}."
    speedup = total["NRFS-2"] / total["NRFS"]
    vs_mcfs = total["NRFS"] / total["MCFS"]
    vs_ndfs = total["NDFS"] / total["NRFS"]
    checks = [speedup >= 1.57, 0.5 <= vs_mcfs <= 2.0, vs_ndfs >= 2.5]
    text = (f"Summed over the datasets timed for all methods: NRFS-1 {total['NRFS']:.1f} s, NRFS-2 "
            f"{total['NRFS-2']:.1f} s (NRFS-2 / NRFS-1 = {speedup:.2f}, time cut by {1 - 1 / speedup:.0%}; paper: "
            f"'57% faster', read as >= 1.57x), MCFS {total['MCFS']:.1f} s (NRFS-1 / MCFS = {vs_mcfs:.2f}; "
            f"'comparable' read as within 2x), NDFS {total['NDFS']:.1f} s (NDFS / NRFS-1 = {vs_ndfs:.2f}; "
            "paper: > 2.5).")
    return _verdict(all(checks), any(checks)), text


def claims_markdown(claims: list[tuple[str, str, str]]) -> str:
    """``claims`` = (claim, verdict, evidence) triples, in the order of claims.md's NRFS section."""
    lines = ["# NRFS: claims and verdicts (computed from this run's results)", ""]
    for claim, verdict, evidence in claims:
        lines += [f"## {claim}", "", f"**Verdict: {verdict}.**", "", evidence, ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- the paper as one unit (ufskit.papers.registry)


def _read_table1(table: pd.DataFrame) -> pd.DataFrame:
    long = melt_columns(table, "method", {"nmi_all": "nmi_all", "nmi_normal": "nmi_normal"}, "metric")
    return reader_rows(long, "Table I", dataset="nrfs_synthetic")


PAPER = PaperSpec(
    name="nrfs",
    title="NRFS (Huang, Yoo, Yu & Qin, ICDM 2014)",
    roles=ROLES,
    published=(
        Published("nrfs_table1.csv", "Table I", {"nmi_all_instances": ("nmi_all", None),
                                                 "nmi_normal_instances": ("nmi_normal", None)},
                  dataset="nrfs_synthetic"),
        Published("nrfs_table2.csv", "Table II",
                  {"instances": ("n_samples", ""), "features": ("n_features", ""), "clusters": ("n_classes", "")}),
    ),
    readers={"table1": _read_table1},
    claims="claims.csv",
    tables={"table1.md": "nrfs_table1", "table2.md": "nrfs_table2", "claims.md": "nrfs_claims",
            "nrfs_spectrum.md": "nrfs_spectrum", "nrfs_oracle.md": "nrfs_oracle"},
    figures={**{f"{f}.png": f"nrfs_{f}" for f in ("fig1", "fig4", "sensitivity", "fig5", "fig6", "fig7")},
             "nrfs_spectrum.png": "nrfs_spectrum"},
)
