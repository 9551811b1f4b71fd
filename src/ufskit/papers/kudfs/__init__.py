"""Kernel UDFS (Liu & Wang): the paper's nonlinear competitors, Fig. 1's distance ratio, Table 1, Fig. 2, claims.

UDFS and kernel UDFS run on the generic select -> evaluate path (K-means ACC of
the first m selected features, kernel UDFS's features being columns of the RBF
Gram matrix). This module adds what that path does not cover:

* ``kernel_pca_accuracy``: K-means ACC on the first m Kernel PCA components;
* ``kernel_kmeans_accuracy``: Kernel K-means ACC on all features;
* ``distance_ratio_curves``: Fig. 1, the distance ratio of the first m kernel
  features in ranked and in instance order;
* Table 1 beside the published values, the Fig. 2 curves, the figures and the
  claims report.

The paper counts selected features in 1..d, d the dimension of the *original*
space, for every method (Sec. 4.2); counts evaluated beyond a dataset's d are
ignored here. Choices the paper leaves open: docs/fidelity/kudfs-paper.md.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

# matplotlib and scikit-learn (KernelPCA, ..cluster) are imported by the functions using them: start-up loads neither
from ... import chance as C
from ... import metrics as M
from ...experiments import method_reps, settings_by_slug
from ...intermediates import read_json
from ...kernels import distance_ratio, rbf_kernel
from ...plots import count_axis, finish, method_style, panel_grid, plot_line
from ...seeds import derive_seed
from ...tables import markdown_table
from ...validation import check_data
from .. import EXTRA_MARK, EXTRA_NOTE, added_styles, claims_frame, shown_label
from .. import read_published as _read_published
from ..spec import PaperSpec, Published, melt_columns, reader_rows

METRIC = "kmeans_acc"
UDFS, KUDFS, KPCA, KKMEANS = "UDFS", "KernelUDFS", "KernelPCA", "KernelKMeans"
FIRST_FEW = 5  # "the first few" selected features of Fig. 1 and Fig. 2
FAR_SMALLER = 0.9  # Fig. 1's "far smaller": at most this fraction of the reference ratio


# ---------------------------------------------------------------- the nonlinear competitors


def _kmeans_options(kmeans: dict) -> dict:
    return {"n_runs": kmeans.get("n_runs", 10), "n_init": kmeans.get("n_init", 10)}


def kernel_pca_accuracy(X, y, counts, *, sigma: float, kmeans: dict, seed: int) -> pd.DataFrame:
    """K-means ACC (mean over runs) on the first m Kernel PCA components, for each m in ``counts``.

    Kernel PCA is scikit-learn's, on the RBF kernel exp(-||x - y||^2 / (2 sigma^2))
    (its gamma = 1 / (2 sigma^2)), dense eigensolver. K-means runs are seeded as
    the generic evaluation seeds them: ``derive_seed(seed, "kmeans", m)``.
    """
    from sklearn.decomposition import KernelPCA

    X = check_data(X)
    counts = sorted({int(c) for c in counts})
    if not counts or counts[0] < 1 or counts[-1] > X.shape[0]:
        raise ValueError(f"counts must be in [1, n_samples = {X.shape[0]}], got {counts}.")
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be finite and > 0, got {sigma!r}.")
    Z = KernelPCA(n_components=counts[-1], kernel="rbf", gamma=0.5 / sigma**2, eigen_solver="dense").fit_transform(X)
    c = int(np.unique(y).size)
    rows = [
        {"n_features": m, "metric": METRIC,
         "value": M.kmeans_scores(Z[:, :m], y, c, random_state=derive_seed(seed, "kmeans", m),
                                  **_kmeans_options(kmeans))["acc_mean"]}
        for m in counts
    ]
    return _tidy(rows, KPCA)


def kernel_kmeans_accuracy(X, y, *, sigma: float, kmeans: dict, seed: int) -> pd.DataFrame:
    """Kernel K-means ACC on all features: mean over ``n_runs`` runs of ``n_init`` k-means++ starts each."""
    from ...cluster import KernelKMeans

    X = check_data(X)
    K = rbf_kernel(X, sigma=sigma)
    c = int(np.unique(y).size)
    opts = _kmeans_options(kmeans)
    accs = [
        M.clustering_accuracy(y, KernelKMeans(c, kernel="precomputed", n_init=opts["n_init"],
                                              random_state=derive_seed(seed, "kernel_kmeans", r)).fit(K).labels_)
        for r in range(opts["n_runs"])
    ]
    return _tidy([{"n_features": pd.NA, "metric": METRIC, "value": float(np.mean(accs))}], KKMEANS)


def _tidy(rows, method) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    frame.insert(0, "method", method)
    frame["n_features"] = frame["n_features"].astype("Int64")
    return frame


# ---------------------------------------------------------------- Fig. 1: distance ratio


def distance_ratio_curves(K, y, order) -> pd.DataFrame:
    """Distance ratio of the first m kernel features (columns of K), m = 1..n.

    Columns: ``ordered`` (the first m by the selector's ``order``), ``unordered``
    (the first m training instances as stored) and ``all_features`` (all n
    kernel features, the paper's dashed line; the same on every row).
    """
    K = check_data(K, name="K")
    order = np.asarray(order)
    if order.shape != (K.shape[1],) or not np.array_equal(np.sort(order), np.arange(K.shape[1])):
        raise ValueError(f"order must be a permutation of the {K.shape[1]} kernel features.")
    counts = np.arange(1, K.shape[1] + 1)
    return pd.DataFrame({
        "n_features": counts,
        "ordered": [distance_ratio(K[:, order[:m]], y) for m in counts],
        "unordered": [distance_ratio(K[:, :m], y) for m in counts],
        "all_features": distance_ratio(K, y),
    })


# ---------------------------------------------------------------- Table 1 and Fig. 2


def read_dims(summary_paths) -> dict:
    """Dataset -> original dimension d, from the prepared-data summaries (JSON)."""
    summaries = [read_json(p) for p in summary_paths]
    return {s["dataset"]: int(s["n_features"]) for s in summaries}


def read_published(path) -> pd.DataFrame:
    """The published Table 1 (percent), indexed by dataset."""
    return _read_published(path).set_index("dataset")


def within_dims(frame: pd.DataFrame, dims: dict) -> pd.DataFrame:
    """Rows of the K-means metric at counts 1..d of each dataset (d = original dimension)."""
    frame = frame[frame["metric"] == METRIC]
    unknown = sorted(set(frame["dataset"]) - set(dims))
    if unknown:
        raise ValueError(f"no original dimension given for dataset(s) {unknown}.")
    keep = frame["n_features"].notna() & (frame["n_features"] <= frame["dataset"].map(dims))
    return frame[keep.astype(bool)]


def _best(frame: pd.DataFrame, method: str) -> pd.DataFrame:
    """Per dataset the best mean ACC over settings and counts, with its setting and count."""
    part = frame[frame["method"] == method]
    if part.empty:
        raise ValueError(f"no {METRIC} rows of method {method!r}.")
    mean = part.groupby(["dataset", "params", "n_features"], as_index=False)["value"].mean()
    return mean.loc[mean.groupby("dataset")["value"].idxmax()].set_index("dataset")


def table1(udfs: pd.DataFrame, kernel: pd.DataFrame, dims: dict, published: pd.DataFrame,
           labels: dict | None = None, extra=()) -> pd.DataFrame:
    """Table 1 (percent): all features, UDFS and kernel UDFS, each best over parameters and counts 1..d.

    ``udfs`` / ``kernel`` are the experiments' metric tables; "all features" is
    UDFS's count d (all original features). ``labels`` maps a kernel-UDFS
    params slug to a short label for the table. Published values sit beside.
    ``extra``: labels of methods added to the UDFS experiment (``extra_methods``), each best the same way, in the
    columns ``extra_<label>`` and ``extra_<label>_n_features`` (not in the paper: no published value, no claim).
    """
    udfs, kernel = within_dims(udfs, dims), within_dims(kernel, dims)
    best_u, best_k = _best(udfs, UDFS), _best(kernel, KUDFS)
    best_extra = {m: _best(udfs, m) for m in extra}
    at_d = udfs[(udfs["method"] == UDFS) & (udfs["n_features"] == udfs["dataset"].map(dims))]
    all_features = at_d.groupby("dataset")["value"].mean()
    datasets = [d for d in published.index if d in best_k.index] + sorted(set(best_k.index) - set(published.index))
    labels = labels or {}
    rows = []
    for ds in datasets:
        pub = published.loc[ds] if ds in published.index else pd.Series(dtype=float)
        rows.append({
            "dataset": ds, "d": int(dims[ds]),
            "all_features": 100 * all_features.get(ds, np.nan), "all_features_published": pub.get("all_features"),
            "udfs": 100 * best_u.loc[ds, "value"], "udfs_published": pub.get("udfs"),
            "udfs_n_features": int(best_u.loc[ds, "n_features"]),
            "kernel_udfs": 100 * best_k.loc[ds, "value"], "kernel_udfs_published": pub.get("kernel_udfs"),
            "kernel_udfs_setting": labels.get(best_k.loc[ds, "params"], best_k.loc[ds, "params"]),
            "kernel_udfs_n_features": int(best_k.loc[ds, "n_features"]),
            **{key: value for m, best in best_extra.items() for key, value in _extra_cells(m, best, ds).items()},
        })
    return pd.DataFrame(rows)


def _extra_cells(method: str, best: pd.DataFrame, dataset: str) -> dict:
    """Table 1's columns of an added method on ``dataset``: its best ACC (percent) and the count it was found at."""
    if dataset not in best.index:
        return {f"extra_{method}": np.nan, f"extra_{method}_n_features": np.nan}
    return {f"extra_{method}": 100 * best.loc[dataset, "value"],
            f"extra_{method}_n_features": int(best.loc[dataset, "n_features"])}


# Table 1's columns with Random's best of G beside them -> the method whose value they hold
CHANCE_COLUMNS = {"udfs": UDFS, "kernel_udfs": KUDFS}
CHANCE_SUFFIXES = ["chance", "chance_std", "chance_se"]  # <column>_<suffix> holds ufskit.chance.COLUMNS' value
SHOWN = {UDFS: "UDFS", KUDFS: "Kernel UDFS"}  # their names in the markdown
ROLE_METHOD = {"udfs": UDFS, "table1": KUDFS}  # the method Table 1 takes from the experiment of each role


def chance_shape(experiment: dict, method: str) -> tuple[int, int]:
    """(G, reps) of ``method``'s Table 1 value: G = the settings of its grid the best is taken over (the config's,
    e.g. kernel UDFS's 8 widths), reps = its repetitions, each setting's value being their mean."""
    if method not in experiment["methods"]:
        raise ValueError(f"Table 1 takes {method!r} from an experiment without it; its methods: "
                         f"{sorted(experiment['methods'])}.")
    return len(settings_by_slug(experiment, method)), method_reps(experiment, method)


def table1_chance(table: pd.DataFrame, pools: dict[str, dict[str, pd.DataFrame]],
                  shapes: dict[str, tuple[int, int]], dims: dict) -> pd.DataFrame:
    """Table 1 with Random under each method's selection: columns ``<column>_G``, ``<column>_chance``,
    ``<column>_chance_std`` and ``<column>_chance_se`` (percent) for UDFS (``udfs``) and kernel UDFS
    (``kernel_udfs``).

    ``pools``: method -> dataset -> the tidy metrics of its random orders (rule kudfs_chance, evaluated with the
    options of the method's experiment); ``shapes``: method -> (G, reps) (``chance_shape``). Per dataset: Random's
    best over G settings of ``reps`` orders each and over the counts 1..d (``ufskit.chance.best_of_g``): the mean
    over the pool's partitions into groups, one try's standard deviation and the mean's standard error
    (``ufskit.chance.spread``). A dataset without a pool gets no value.
    """
    unknown = sorted(set(shapes) - set(CHANCE_COLUMNS.values()))
    if unknown:
        raise ValueError(f"Table 1 has no chance column for method(s) {unknown}; it has {sorted(CHANCE_COLUMNS.values())}.")
    out = table.copy()
    for column, method in CHANCE_COLUMNS.items():
        if method not in shapes:
            continue
        g, reps = shapes[method]
        values = {ds: C.spread(C.best_of_g(within_dims(pool, dims), g=g, reps=reps)).set_index("metric").loc[METRIC]
                  for ds, pool in pools.get(method, {}).items()}
        out[f"{column}_G"] = pd.array([g if ds in values else pd.NA for ds in out["dataset"]], dtype="Int64")
        for suffix, key in zip(CHANCE_SUFFIXES, C.COLUMNS):
            out[f"{column}_{suffix}"] = [100 * values[ds][key] if ds in values else np.nan for ds in out["dataset"]]
    return out


def chance_rows(table: pd.DataFrame) -> pd.DataFrame:
    """Table 1's chance columns in long form: dataset, method, G, chance_best_of_g, chance_std, chance_se (none:
    empty)."""
    parts = [table[["dataset"]].assign(method=method, G=table[f"{column}_G"],
                                       **{key: table[f"{column}_{suffix}"] for suffix, key in
                                          zip(CHANCE_SUFFIXES, C.COLUMNS)})
             for column, method in CHANCE_COLUMNS.items() if f"{column}_G" in table]
    columns = ["dataset", "method", "G", *C.COLUMNS]
    return pd.concat(parts, ignore_index=True)[columns] if parts else pd.DataFrame(columns=columns)


def table1_values(table: pd.DataFrame) -> pd.DataFrame:
    """Table 1's methods' values (dataset, method, metric, value; ACC as a fraction) for the statistics over its
    datasets: UDFS, kernel UDFS and the added methods (all features is no selection)."""
    columns = {"udfs": UDFS, "kernel_udfs": KUDFS, **{c: c[len("extra_"):] for c in table.columns
                                                       if c.startswith("extra_") and not c.endswith("_n_features")}}
    long = melt_columns(table, "dataset", columns, "method")
    return long.assign(metric=METRIC, value=long["reproduced"] / 100)[["dataset", "method", "metric", "value"]]


def _extra_cell(row: dict, method: str) -> str:
    """An added method's Table 1 cell: best ACC and the count it was found at (no published value)."""
    value = row[f"extra_{method}"]
    return "-" if pd.isna(value) else f"{value:.1f} at {int(row[f'extra_{method}_n_features'])} features"


def _pct(value) -> str:
    return "-" if pd.isna(value) else f"{value:.1f}"


def table1_markdown(table: pd.DataFrame) -> str:
    """Table 1 as markdown: reproduced (published) per column, and where the best kernel UDFS was found."""
    lines = [
        "# Table 1: K-means clustering accuracy (%), reproduced (published)",
        "",
        "Best over parameters and over 1..d selected features (d = original dimension); K-means ACC",
        "is the mean over runs with Hungarian matching. UDFS: k = 5, gamma = 1e-3, lambda = 1e3.",
        "",
    ]
    extra = [c[len("extra_"):] for c in table.columns if c.startswith("extra_") and not c.endswith("_n_features")]
    rows = [[r.dataset, r.d, f"{_pct(r.all_features)} ({_pct(r.all_features_published)})",
             f"{_pct(r.udfs)} ({_pct(r.udfs_published)})", f"{_pct(r.kernel_udfs)} ({_pct(r.kernel_udfs_published)})",
             f"{r.kernel_udfs_setting}, {r.kernel_udfs_n_features}"]
            + [_extra_cell(extras, m) for m in extra]
            for r, extras in zip(table.itertuples(index=False), table.to_dict("records"))]
    header = ["dataset", "d", "All Features", "UDFS", "Kernel UDFS (ours)", "kernel UDFS setting, features",
              *(f"{m}{EXTRA_MARK}" for m in extra)]
    note = f"\n{EXTRA_NOTE}\n" if extra else ""
    return "\n".join(lines) + "\n" + markdown_table(rows, header) + note + _chance_markdown(table)


def _chance_markdown(table: pd.DataFrame) -> str:
    """The "Random, best of G" section: each method's value vs Random's under the same selection (mean ± std)."""
    chance = chance_rows(table).dropna(subset=["G"])
    if chance.empty:
        return ""
    column = {method: column for column, method in CHANCE_COLUMNS.items()}
    methods = list(dict.fromkeys(chance["method"]))
    g = chance.groupby("method")["G"].agg(_g_text)
    cells = chance.set_index(["dataset", "method"])
    mine = table.set_index("dataset")
    rows = [[ds] + [_chance_cell(mine.loc[ds, column[m]], cells.loc[ds, m]) if (ds, m) in cells.index else ""
                    for m in methods]
            for ds in table["dataset"]]
    header = ["dataset", *(f"{SHOWN[m]} (G = {g[m]})" for m in methods)]
    return ("\n## Random, best of G\n\n" + markdown_table(rows, header)
            + "\nCells: the method's ACC (%) vs Random, best of G (mean ± standard deviation of one try; "
              f"{C.ESTIMATOR_NOTE}): the best over G settings (each the mean of the method's repetitions) and the "
              "counts 1..d, as the method's value is. See docs/fidelity/readings.md, Chance under the same "
              "selection.\n")


def _g_text(g: pd.Series) -> str:
    """The G values of a chance column as text ("8"; "3/8" if they differ)."""
    return "/".join(str(int(x)) for x in sorted(g.dropna().unique()))


def _chance_cell(value, chance: pd.Series) -> str:
    if pd.isna(chance["chance_best_of_g"]):
        return ""
    return f"{_pct(value)} vs {chance['chance_best_of_g']:.1f} ± {chance['chance_std']:.1f}"


def fig2_curves(kernel: pd.DataFrame, competitors: pd.DataFrame, dims: dict,
                labels: dict | None = None, extra=()) -> pd.DataFrame:
    """Fig. 2's curves: ACC per dataset, method and count 1..d (Kernel K-means: one row, count NA).

    Kernel UDFS is tuned over its settings at each count (the best mean ACC;
    ``setting`` says which); Kernel PCA has no parameter to tune. ``extra``: labels of methods added to the
    Fig. 2 experiment (``extra_methods``), each tuned over its settings at each count as kernel UDFS is, and a
    column ``in_paper`` (False on their rows; absent without them).
    """
    labels = labels or {}
    comp = competitors[competitors["metric"] == METRIC]
    pca = within_dims(comp[comp["method"] == KPCA], dims).assign(setting="")
    kkm = comp[comp["method"] == KKMEANS].assign(setting="")
    cols = ["dataset", "method", "n_features", "value", "setting"]
    tuned = [_tuned_per_count(kernel, method, dims, labels)[cols] for method in (KUDFS, *extra)]
    out = pd.concat([*tuned, pca[cols], kkm[cols]], ignore_index=True)
    out["n_features"] = out["n_features"].astype("Int64")
    if len(extra):
        out["in_paper"] = ~out["method"].isin(extra)
    return out.rename(columns={"value": "acc"}).sort_values(["dataset", "method", "n_features"], ignore_index=True)


def _tuned_per_count(frame: pd.DataFrame, method: str, dims: dict, labels: dict) -> pd.DataFrame:
    """``method``'s best mean ACC over its settings at each dataset and count 1..d, ``setting`` saying which."""
    rows = within_dims(frame[frame["method"] == method], dims)
    if rows.empty:
        raise ValueError(f"Fig. 2: no {METRIC} rows of method {method!r} at counts 1..d.")
    mean = rows.groupby(["dataset", "params", "n_features"], as_index=False)["value"].mean()
    best = mean.loc[mean.groupby(["dataset", "n_features"])["value"].idxmax()]
    return best.assign(method=method, setting=best["params"].map(lambda s: labels.get(s, s)))


# ---------------------------------------------------------------- figures


def figure1(curves: dict[str, pd.DataFrame], dataset: str, *, kernel: str = "RBF kernel",
            added: dict[str, pd.DataFrame] | None = None, protocol: str = "full"):
    """Fig. 1: distance ratio vs number of kernel features, unordered and ordered per setting, all as dashed.

    ``kernel`` names the kernel that ran (e.g. "RBF kernel, sigma = 1"), for the title. ``added``: label
    (marked not in the paper) -> ``distance_ratio_curves`` of a method added by ``extra_methods``, one per setting
    as kernel UDFS's, drawn in the added style; a method ranking the original features is drawn on them, with the
    ratio of all of them as a dotted line in its colour.
    """
    from matplotlib.ticker import FuncFormatter

    first = next(iter(curves.values()))
    for label, c in curves.items():
        if not np.allclose(c["unordered"], first["unordered"], rtol=1e-10, atol=0):
            raise ValueError(f"Fig. 1 settings must share one kernel; {label!r} differs.")
    fig, (ax,) = panel_grid(1, panel_size=(5.6, 3.8))
    plot_line(ax, first["n_features"], first["unordered"], "unordered", 0, color="tab:red", marker=None,
              label="unordered kernel features")
    colours = ("tab:blue", "tab:cyan", "tab:purple", "tab:olive")
    for layer, ((label, c), color) in enumerate(zip(curves.items(), colours), 1):
        plot_line(ax, c["n_features"], c["ordered"], label, layer, color=color, marker=None,
                  label=f"ordered by kernel UDFS, {label}")
    ax.axhline(first["all_features"].iloc[0], color="black", linestyle="--", linewidth=1.2,
               label="all kernel features")
    drawn = [first["all_features"].iloc[0]]
    for index, (label, c) in enumerate((added or {}).items()):
        (line,) = plot_line(ax, c["n_features"], c["ordered"], label, len(curves) + 1 + index, added=index,
                            markevery=0.1, label=f"ordered by {label}")
        whole = c["all_features"].iloc[0]
        if not np.isclose(drawn, whole, rtol=1e-10, atol=0).any():
            ax.axhline(whole, color=line.get_color(), linestyle=":", linewidth=1.2,
                       label=f"all features ranked by {label.split(',')[0]}")
            drawn.append(whole)
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))  # counts: 1, 10, 100
    ax.set_xlabel("number of kernel features (log scale)" if not added else
                  "number of features: kernel features, or an added method's own (log scale)")
    ax.set_ylabel("distance ratio (within / between)")
    ax.grid(alpha=0.3)
    return finish(fig, [ax], title=f"Fig. 1: distance ratio on {dataset}, {kernel}", protocol=protocol)


def figure2(curves: pd.DataFrame, published: pd.DataFrame | None = None, *, kernel: str = "RBF kernel",
            protocol: str = "full"):
    """Fig. 2: ACC vs number of selected features per dataset (kernel UDFS, Kernel PCA, Kernel K-means).

    ``kernel`` names the kernel that ran (e.g. "RBF kernel, sigma = 1"), for the title. Methods added by
    ``extra_methods`` (``in_paper`` False in ``curves``: tuned per count as kernel UDFS) are drawn after the
    paper's, in their added style, marked not in the paper.
    """
    datasets = list(dict.fromkeys(curves["dataset"]))
    added = added_styles(curves)
    fig, axes = panel_grid(len(datasets), ncols=3)
    for ax, ds in zip(axes, datasets):
        part = curves[curves["dataset"] == ds]
        shown = ((KUDFS, "kernel UDFS (tuned)"), (KPCA, "Kernel PCA"), *((m, shown_label(m, curves)) for m in added))
        for layer, (method, label) in enumerate(shown):
            line = part[part["method"] == method]
            plot_line(ax, line["n_features"], 100 * line["acc"], method, layer, label=label, added=added.get(method))
        kkm = part[part["method"] == KKMEANS]["acc"]
        if not kkm.empty:
            ax.axhline(100 * kkm.iloc[0], **{**method_style(KKMEANS, 2), "marker": None, "linestyle": "--",
                                             "label": "Kernel K-means (all features)"})
        if published is not None and ds in published.index:
            ax.axhline(published.loc[ds, "kernel_udfs"], color="gray", linestyle=":", linewidth=1.0,
                       label="published Table 1 (kernel UDFS, best)")
        ax.set_title(ds)
        count_axis(ax.xaxis)
        ax.set_ylabel("clustering accuracy (%)")
        ax.grid(alpha=0.3)
    return finish(fig, axes, title=f"Fig. 2: K-means accuracy, {kernel}", protocol=protocol)


# ---------------------------------------------------------------- claims


def claim_table1(table: pd.DataFrame) -> dict:
    """Kernel UDFS above UDFS and above all features on every dataset (reproduced numbers); the evidence also says
    on how many datasets kernel UDFS beats Random under the same selection, if the table has it."""
    wins = (table["kernel_udfs"] > table["udfs"]) & (table["kernel_udfs"] > table["all_features"])
    evidence = "; ".join(
        f"{r.dataset}: {r.kernel_udfs:.1f} vs UDFS {r.udfs:.1f}, all {r.all_features:.1f}"
        for r in table.itertuples(index=False)
    )
    return {"id": "KUDFS/T1", "claim": "Table 1: kernel UDFS beats linear UDFS and all features on every dataset",
            "holds": bool(wins.all()),
            "evidence": f"{int(wins.sum())}/{len(table)} datasets. {evidence}" + _beats_chance(table)}


def _beats_chance(table: pd.DataFrame) -> str:
    """On how many datasets kernel UDFS's reproduced and published values beat Random, best of G ("" without it)."""
    if "kernel_udfs_G" not in table:
        return ""
    mine = table.dropna(subset=["kernel_udfs_chance"])
    if mine.empty:
        return ""
    won = [C.verdict_count(pd.Series([C.chance_verdict(v, c, sd, METRIC) for v, c, sd in
                                      zip(mine[column], mine["kernel_udfs_chance"], mine["kernel_udfs_chance_std"])]))
           for column in ("kernel_udfs", "kernel_udfs_published")]
    return (f". Kernel UDFS beats Random, best of G = {_g_text(mine['kernel_udfs_G'])} (the same selection), on {won[0]} datasets "
            f"(the published values: {won[1]})")


def claim_fig1(curves: pd.DataFrame, label: str) -> dict:
    """The first FIRST_FEW ordered kernel features have a far smaller distance ratio than unordered ones and all."""
    head = curves[curves["n_features"] <= FIRST_FEW]
    ordered, unordered, whole = head["ordered"].mean(), head["unordered"].mean(), curves["all_features"].iloc[0]
    holds = ordered <= FAR_SMALLER * min(unordered, whole)
    return {"id": "KUDFS/Fig1",
            "claim": f"Fig. 1 ({label}): the first {FIRST_FEW} ordered kernel features have a far smaller "
                     f"distance ratio (<= {FAR_SMALLER:g} x) than unordered ones and all features",
            "holds": bool(holds),
            "evidence": f"mean ratio over m = 1..{FIRST_FEW}: ordered {ordered:.3f}, unordered {unordered:.3f}; "
                        f"all kernel features {whole:.3f}"}


def claim_fig2(curves: pd.DataFrame) -> dict:
    """On every dataset the best of the first FIRST_FEW kernel UDFS features beats Kernel PCA's and Kernel K-means."""
    parts, wins = [], 0
    for ds, part in curves.groupby("dataset", sort=False):
        head = part[part["n_features"].notna() & (part["n_features"] <= FIRST_FEW)]
        ours = head.loc[head["method"] == KUDFS, "acc"].max()
        pca = head.loc[head["method"] == KPCA, "acc"].max()
        kkm = part.loc[part["method"] == KKMEANS, "acc"].max()
        wins += bool(ours > pca and ours > kkm)
        parts.append(f"{ds}: {100 * ours:.1f} vs Kernel PCA {100 * pca:.1f}, Kernel K-means {100 * kkm:.1f}")
    n = curves["dataset"].nunique()
    return {"id": "KUDFS/Fig2",
            "claim": f"Fig. 2: within the first {FIRST_FEW} selected features kernel UDFS beats Kernel PCA "
                     "and Kernel K-means on every dataset",
            "holds": wins == n, "evidence": f"{wins}/{n} datasets (best ACC % over m = 1..{FIRST_FEW}). "
                                            + "; ".join(parts)}


def claims_markdown(claims: list[dict]) -> str:
    """The claims report: one verdict per claim with its numbers."""
    lines = ["# Kernel UDFS paper: claims and verdicts", "",
             "Verdicts are computed from this run's numbers (docs/fidelity/kudfs-paper.md gives the rules).", ""]
    rows = [[c["claim"], "holds" if c["holds"] else "does not hold", c["evidence"]] for c in claims]
    return "\n".join(lines) + "\n" + markdown_table(rows, ["claim", "verdict", "numbers"])


def claims_table(claims: list[dict]) -> pd.DataFrame:
    """The claims as the scorecard reads them (claims.csv: id of config/published/claims.csv, verdict, numbers)."""
    return claims_frame({"id": c["id"], "claim": c["claim"], "verdict": c["holds"], "numbers": c["evidence"]}
                        for c in claims)


# ---------------------------------------------------------------- the paper as one unit (ufskit.papers.registry)

ROLES = ("udfs", "table1", "fig1", "fig2")  # config `role` of its experiments: Table 1's two sides, Fig. 1, Fig. 2
TABLE1_COLUMNS = {"all_features": "All Features", "udfs": UDFS, "kernel_udfs": KUDFS}  # table1.csv -> method


def _read_table1(table: pd.DataFrame) -> pd.DataFrame:
    """Table 1's numbers, with Random's best of G beside UDFS's and kernel UDFS's (the scorecard's chance columns)."""
    rows = reader_rows(melt_columns(table, "dataset", TABLE1_COLUMNS, "method"), "Table 1", metric="kmeans_acc")
    chance = chance_rows(table)
    return rows if chance.empty else rows.merge(chance, on=["dataset", "method"], how="left")


PAPER = PaperSpec(
    name="kudfs",
    title="Kernel UDFS (Liu & Wang)",
    roles=ROLES,
    published=(Published("kudfs_table1.csv", "Table 1",
                         {column: ("kmeans_acc", method) for column, method in TABLE1_COLUMNS.items()}),),
    readers={"table1": _read_table1},
    claims="claims.csv",
    tables={"table1.md": "kudfs_table1", "claims.md": "kudfs_claims"},
    figures={"fig1.png": "kudfs_fig1", "fig2.png": "kudfs_fig2"},
)
