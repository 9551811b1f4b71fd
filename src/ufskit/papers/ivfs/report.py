"""IVFS paper outputs: Table 1 and Table 2 beside the published numbers, Figs. 2-4, and the claims.

Every function takes plain frames: ``summary`` is the generic results summary
(``results/<experiment>/summary.csv``: dataset, method, params, n_features,
metric, mean, std, reps), so the functions are tested on small hand-made frames.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib import colormaps

from ... import chance as C
from ...plots import count_axis, finish, panel_grid, plot_line, shade_band
from ...results import higher_is_better
from ...selection_io import BEYOND_RANKED_MARK, BEYOND_RANKED_NOTE
from ...tables import markdown_table
from .. import added_styles, extra_note, read_published, shown_label  # noqa: F401  (read_published: re-exported)
from .. import verdict as _verdict
from . import fixed_slug, table1_shapes, table_slugs

IVFS = "IVFS-linf"
METHODS = ("SPEC", "MCFS", "GLSPFS", IVFS)
# metric -> (column header, factor to the paper's unit, column of the published CSV)
TABLE1 = {
    "knn_acc": ("KNN (%)", 100.0, "knn_acc_pct"),
    "w11": ("w11", 1.0, "w11"),
    "winf": ("winf", 1.0, "winf"),
    "Linf": ("Linf", 1.0, "Linf"),
    "L1_over_n2": ("L1/n^2 (1e-2)", 100.0, "L1_over_n2_x1e-2"),
    "L2": ("L2", 1.0, "L2"),
    "fit_seconds": ("Time (s)", 1.0, "time_s"),
    "w11_literal": ("w11, eps=0.1", 1.0, None),
    "winf_literal": ("winf, eps=0.1", 1.0, None),
}
CHANCE_METRICS = [m for m in TABLE1 if m != "fit_seconds"]  # Random's best of G: the quality metrics
FIG4_METRICS = ("Linf", "L2", "knn_acc")


def _lower_better(metric: str) -> bool:
    """Lower is better for the distances, diagrams (also the literal reading, ``w11_literal``) and time."""
    return not higher_is_better(metric)



def _best(rows: pd.DataFrame, metric: str):
    """The row with the best mean of ``metric`` (ties: the first in the frame's order)."""
    rows = rows[rows["metric"] == metric].dropna(subset=["mean"])
    if rows.empty:
        return None
    return rows.loc[rows["mean"].idxmin() if _lower_better(metric) else rows["mean"].idxmax()]


# ---------------------------------------------------------------- Table 1


def table1(summary: pd.DataFrame, *, datasets: list[str], info: dict, excluded: dict, methods: dict,
           protocol: dict, published: pd.DataFrame) -> pd.DataFrame:
    """Table 1 in long form: per dataset, method and metric the reproduced and the published value.

    Reproduced = the best mean over the Table 1 settings and feature counts
    (the paper: "the best result among all parameters and number of selected
    features for each metric"); the time is the mean fit time of the paper's
    fixed setting. Values are in the paper's units (KNN in %, L1/n^2 in 1e-2).
    A dataset without results (``info`` has no entry) gets one row per method
    with status "not obtained" and the reason.
    """
    pub = published.set_index(["dataset", "method"])
    rows = []
    for dataset in datasets:
        meta = info.get(dataset)
        for method in methods:
            base = {"dataset": dataset, "method": method}
            if meta is None:
                why = excluded.get(dataset, "not run")
                rows += [{**base, "metric": m, "status": f"not obtained: {why}",
                          "published": _published(pub, dataset, method, m), "beyond_ranked": False} for m in TABLE1]
                continue
            base.update(n=meta["n_samples"], d=meta["n_features"], classes=meta["n_classes"])
            mine = summary[(summary["dataset"] == dataset) & (summary["method"] == method)]
            slugs = table_slugs(methods, protocol, method, meta["n_samples"])
            fixed = fixed_slug(methods, protocol, method)
            for metric, (_, factor, _) in TABLE1.items():
                pool = mine[mine["params"] == fixed] if metric == "fit_seconds" else mine[mine["params"].isin(slugs)]
                best = _best(pool, metric)
                rows.append({**base, "metric": metric, "status": "ok" if best is not None else "no value",
                             "reproduced": None if best is None else float(best["mean"]) * factor,
                             "published": _published(pub, dataset, method, metric),
                             "params": None if best is None else best["params"],
                             "n_features": None if best is None or pd.isna(best["n_features"])
                             else int(best["n_features"]),
                             "beyond_ranked": best is not None and bool(best.get("beyond_ranked", False))})
    return pd.DataFrame(rows, columns=["dataset", "n", "d", "classes", "method", "metric", "reproduced",
                                       "published", "params", "n_features", "status", "beyond_ranked"])


def _published(pub: pd.DataFrame, dataset: str, method: str, metric: str):
    column = TABLE1[metric][2]
    if column is None or (dataset, method) not in pub.index:
        return None
    return float(pub.loc[(dataset, method), column])


def _cell(reproduced, published, digits: int) -> str:
    mine = "–" if reproduced is None or pd.isna(reproduced) else f"{reproduced:.{digits}f}"
    return mine if published is None or pd.isna(published) else f"{mine} ({published:g})"


def table1_markdown(long: pd.DataFrame) -> str:
    """Paper layout: a row per dataset and method, each cell "reproduced (published)"."""
    metrics = list(TABLE1)
    header = ["Dataset", "n", "d", "C", "Method"] + [TABLE1[m][0] for m in metrics]
    rows = []
    for (dataset, method), group in long.groupby(["dataset", "method"], sort=False):
        g = group.set_index("metric")
        if g["status"].iloc[0].startswith("not obtained"):
            rows.append([dataset, "", "", "", shown_label(method, long), g["status"].iloc[0]]
                        + [""] * (len(metrics) - 1))
            continue
        first = g.iloc[0]
        cells = [_cell(g.loc[m, "reproduced"], g.loc[m, "published"], 1 if m in ("knn_acc", "fit_seconds") else 3)
                 + BEYOND_RANKED_MARK * bool(g.loc[m, "beyond_ranked"]) for m in metrics]
        rows.append([dataset, str(int(first["n"])), str(int(first["d"])), str(int(first["classes"])),
                     shown_label(method, long), *cells])
    note = ("\nCells: reproduced (published). Best over the Table 1 settings and feature counts; time: the "
            "paper's fixed setting. w11/winf: bars of every length (see docs/fidelity/ivfs-paper.md); "
            "eps=0.1: the paper's literal filter.\n")
    if long["beyond_ranked"].any():
        note += f"\n{BEYOND_RANKED_NOTE}\n"
    return markdown_table(rows, header) + note + extra_note(long)


# ---------------------------------------------------------------- Table 1: chance under the same selection


def table1_chance(long: pd.DataFrame, pools: dict[str, pd.DataFrame], *, methods: dict, protocol: dict,
                  reps: dict, info: dict) -> pd.DataFrame:
    """Table 1 with Random under each method's selection: columns G, chance_best_of_g, chance_std, chance_se.

    ``pools``: dataset -> the tidy metrics of its random orders (rule ivfs_chance); ``reps``: label ->
    repetitions averaged per setting, for the methods evaluated with the pool's metric options (the
    others get no chance value). Per dataset, method and quality metric of Table 1: Random's best over G
    settings of ``reps`` orders each and over the counts (``ufskit.chance.best_of_g``): the mean over the
    pool's partitions into groups, the standard deviation of one try and the mean's standard error
    (``ufskit.chance.spread``), in the paper's units. The running time gets none.
    """
    rows = []
    for dataset, pool in pools.items():
        if dataset not in info:
            continue
        for method, (g, r) in table1_shapes(methods, protocol, reps, info[dataset]["n_samples"]).items():
            chance = C.spread(C.best_of_g(pool, g=g, reps=r))
            chance = chance[chance["metric"].isin(CHANCE_METRICS)]
            factor = chance["metric"].map(lambda m: TABLE1[m][1])
            rows.append(chance.assign(dataset=dataset, method=method, G=g,
                                      **{c: chance[c] * factor for c in C.COLUMNS}))
    columns = ["dataset", "method", "metric", "G", *C.COLUMNS]
    found = pd.concat(rows, ignore_index=True)[columns] if rows else pd.DataFrame(columns=columns)
    out = long.drop(columns=[c for c in columns[3:] if c in long]).merge(found, on=columns[:3], how="left")
    out["G"] = out["G"].astype("Int64")
    return out


def table1_chance_markdown(long: pd.DataFrame) -> str:
    """Each method's Table 1 value beside Random's under the same selection ("Random, best of G": mean ± std)."""
    rows = []
    for (dataset, method), group in long.dropna(subset=["G"]).groupby(["dataset", "method"], sort=False):
        g = group.set_index("metric")
        rows.append([dataset, shown_label(method, long), str(int(g["G"].dropna().iloc[0]))]
                    + [_chance_cell(g, m, 1 if m == "knn_acc" else 3) for m in CHANCE_METRICS])
    if not rows:
        return ""
    header = ["Dataset", "Method", "G"] + [TABLE1[m][0] for m in CHANCE_METRICS]
    return ("\n## Random, best of G\n\n" + markdown_table(rows, header)
            + "\nCells: the method's value vs Random, best of G (mean ± standard deviation of one try; "
              f"{C.ESTIMATOR_NOTE}): the best over G settings (each the mean of the method's repetitions) and the "
              "counts, as the method's value is. See docs/fidelity/readings.md, Chance under the same selection.\n")


def _chance_cell(g: pd.DataFrame, metric: str, digits: int) -> str:
    if metric not in g.index or pd.isna(g.loc[metric, "chance_best_of_g"]):
        return ""
    mine = g.loc[metric, "reproduced"]
    mine = "–" if pd.isna(mine) else f"{mine:.{digits}f}"
    return f"{mine} vs {g.loc[metric, 'chance_best_of_g']:.{digits}f} ± {g.loc[metric, 'chance_std']:.{digits}f}"


# ---------------------------------------------------------------- Table 2


def table2(stability: pd.DataFrame, *, datasets: list[str], excluded: dict, methods, published: pd.DataFrame
           ) -> pd.DataFrame:
    """Table 2: mean number of the top features that differ after a bootstrap, beside the published mean."""
    pub = published.set_index("dataset")
    rows = []
    for dataset in datasets:
        for method in methods:
            values = stability[(stability["dataset"] == dataset) & (stability["method"] == method)]["differences"]
            ok = not values.empty
            rows.append({"dataset": dataset, "method": method,
                         "reproduced": float(values.mean()) if ok else None, "reps": int(values.size),
                         "published": float(pub.loc[dataset, method]) if dataset in pub.index and method in pub.columns
                         else None,
                         "status": "ok" if ok else f"not obtained: {excluded.get(dataset, 'not run')}"})
    return pd.DataFrame(rows)


def table2_markdown(table: pd.DataFrame, n_selected: int) -> str:
    methods = list(dict.fromkeys(table["method"]))
    rows = []
    for dataset, group in table.groupby("dataset", sort=False):
        g = group.set_index("method")
        if g["status"].iloc[0].startswith("not obtained"):
            rows.append([dataset, g["status"].iloc[0]] + [""] * (len(methods) - 1))
            continue
        rows.append([dataset] + [_cell(g.loc[m, "reproduced"], g.loc[m, "published"], 1) for m in methods])
    return (markdown_table(rows, ["Dataset", *(shown_label(m, table) for m in methods)])
            + f"\nCells: reproduced (published) mean number of the top {n_selected} features selected on the data "
            f"but not on a bootstrap sample of it.\n" + extra_note(table))


# ---------------------------------------------------------------- Figs. 2 and 3


def curves(summary: pd.DataFrame, metric: str, *, info: dict, methods: dict, protocol: dict) -> pd.DataFrame:
    """Per dataset and method, ``metric`` against the number of features for one setting.

    The setting is the Table 1 setting with the best mean of ``metric`` over
    the counts where it was measured (the tuned curve of each method).
    """
    out = []
    for dataset, meta in info.items():
        for method in methods:
            rows = summary[(summary["dataset"] == dataset) & (summary["method"] == method)
                           & (summary["metric"] == metric)
                           & summary["params"].isin(table_slugs(methods, protocol, method, meta["n_samples"]))]
            if rows.empty:
                continue
            means = rows.groupby("params")["mean"].mean()
            pick = means.idxmin() if _lower_better(metric) else means.idxmax()
            curve = rows[rows["params"] == pick].sort_values("n_features")
            marked = ["beyond_ranked"] if "beyond_ranked" in curve else []  # ringed in the figure
            out.append(curve[["dataset", "method", "params", "n_features", "mean", *marked]])
    if not out:
        raise ValueError(f"no {metric!r} values to draw.")
    return pd.concat(out, ignore_index=True)


def draw_curves(frame: pd.DataFrame, *, ylabel: str, title: str, reference: dict | None = None,
                band: pd.DataFrame | None = None, protocol: str = "full"):
    """One panel per dataset, one line per method; ``reference``: dataset -> published best of IVFS-linf;
    ``band``: Random's 5-95 % band per dataset and count (``benchmark_stats.random_band``), shaded behind."""
    datasets = list(dict.fromkeys(frame["dataset"]))
    added = added_styles(frame)  # methods not in the paper: a style of their own
    fig, axes = panel_grid(len(datasets))
    for ax, dataset in zip(axes, datasets):
        if band is not None:
            shade_band(ax, band[band["dataset"] == dataset])
        for layer, (method, curve) in enumerate(frame[frame["dataset"] == dataset].groupby("method", sort=False)):
            plot_line(ax, curve["n_features"], curve["mean"], shown_label(method, curve), layer,
                      beyond=curve.get("beyond_ranked"), added=added.get(method))
        if reference and reference.get(dataset) is not None:
            ax.axhline(reference[dataset], color="tab:red", linestyle=":", linewidth=1,
                       label="IVFS-linf, published best")
        ax.set_title(dataset)
        count_axis(ax.xaxis)
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    return finish(fig, axes, title=title, protocol=protocol)


# ---------------------------------------------------------------- Fig. 4


def fig4_frame(summary: pd.DataFrame, settings: dict, *, method: str = IVFS) -> pd.DataFrame:
    """Relative performance of IVFS over k and n~/n, averaged as the paper does.

    The reference ("1") is the largest k with the largest n~/n of the grid
    (the paper's k=5000, n~=0.5n).

    ``settings``: params slug -> parameter dict of ``method``. For each dataset,
    feature count and d~, a setting's performance is divided by the
    reference's (the reference's value divided by the setting's for
    lower-is-better norms), so above 1 is better than the reference; the
    ratios are then averaged over datasets, counts and d~. Settings whose n~ is
    not a fraction of n (n~ = 100) are left out, as in the paper's figure.
    """
    rows = summary[(summary["method"] == method) & summary["metric"].isin(FIG4_METRICS)].copy()
    keep = {s: p for s, p in settings.items() if isinstance(p.get("subset_samples"), float)}
    rows = rows[rows["params"].isin(keep)]
    for key in ("n_subsets", "subset_samples", "subset_features"):
        rows[key] = rows["params"].map(lambda s, key=key: keep[s].get(key))
    if rows.empty:
        raise ValueError(f"Fig. 4 needs {method} settings with n~ as a fraction of n.")
    is_ref = (rows["n_subsets"] == rows["n_subsets"].max()) & (rows["subset_samples"] == rows["subset_samples"].max())
    cell = ["dataset", "n_features", "subset_features", "metric"]
    ref = rows[is_ref].set_index(cell)["mean"].rename("reference")
    rows = rows.join(ref, on=cell).dropna(subset=["reference"])
    lower = rows["metric"].map(_lower_better)
    rows["relative"] = np.where(lower, rows["reference"] / rows["mean"], rows["mean"] / rows["reference"])
    return (rows.groupby(["metric", "n_subsets", "subset_samples"])["relative"]
            .agg(relative="mean", cells="count").reset_index())


FIG4_LABELS = {"Linf": "||D - D_F||_inf", "L2": "||D - D_F||_2", "knn_acc": "KNN accuracy"}


def draw_fig4(frame: pd.DataFrame, *, protocol: str = "full"):
    """One panel per metric: relative performance against n~/n, one line per k."""
    metrics = [m for m in FIG4_METRICS if m in set(frame["metric"])]
    fig, axes = panel_grid(len(metrics), ncols=3)
    colours = colormaps["viridis"](np.linspace(0.0, 0.85, max(1, frame["n_subsets"].nunique())))
    for ax, metric in zip(axes, metrics):
        part = frame[frame["metric"] == metric]
        for layer, (k, line) in enumerate(part.groupby("n_subsets")):
            line = line.sort_values("subset_samples")
            plot_line(ax, line["subset_samples"], line["relative"], "IVFS-linf", layer, color=colours[layer],
                      marker="os^Dv"[layer % 5], label=f"k = {k}")
        ax.axhline(1.0, color="gray", linestyle=":", linewidth=1)
        ax.set_title(f"relative {FIG4_LABELS.get(metric, metric)}")
        ax.set_xlabel("sub-sampling ratio n~/n")
        ax.set_ylabel("relative performance")
        ax.grid(alpha=0.3)
    title = ("Fig. 4: IVFS-linf's performance relative to the largest k and n~/n (= 1), "
             "mean over datasets, counts and d~")
    return finish(fig, axes, title=title, protocol=protocol)


# ---------------------------------------------------------------- claims


def claims(t1: pd.DataFrame, t2: pd.DataFrame, fig2: pd.DataFrame, fig3: pd.DataFrame, fig4: pd.DataFrame
           ) -> tuple[str, list[dict]]:
    """The IVFS claims (reference/claims.md) with a verdict each and the numbers behind it.

    Returns the markdown report and its verdicts as records (id of
    config/published/claims.csv, claim, verdict, numbers) for claims.csv.
    """
    records = []

    def verdict(cid: str, claim: str, ok: bool, numbers: str) -> str:
        """One verdict line of the markdown, recorded for claims.csv."""
        records.append({"id": cid, "claim": claim, "verdict": _verdict(ok), "numbers": numbers})
        return f"- **{_verdict(ok)}**; {numbers}"

    got = t1[t1["status"] == "ok"]
    wins = {}
    for metric in ("w11", "winf", "Linf", "L1_over_n2", "L2", "knn_acc", "w11_literal", "winf_literal"):
        part = got[got["metric"] == metric].pivot(index="dataset", columns="method", values="reproduced")
        part = part.dropna(subset=[IVFS]) if IVFS in part else part.iloc[0:0]
        if part.empty:
            wins[metric] = (0, 0, [])
            continue
        best = part.min(axis=1) if _lower_better(metric) else part.max(axis=1)
        won = np.isclose(part[IVFS], best, rtol=1e-9, atol=0)  # ties count as a win (degenerate 0 = 0)
        wins[metric] = (int(won.sum()), len(part), sorted(part.index[~won]))
    n_sets = max(n for _, n, _ in wins.values()) if wins else 0

    def line(metric):
        w, n, lost = wins[metric]
        return f"{metric}: best on {w}/{n}" + (f" (not on {', '.join(lost)})" if lost else "")

    def chance(metrics):
        """Whether IVFS-linf's value beats Random's under the same selection (best of G), per metric."""
        if "chance_best_of_g" not in got:
            return ""
        mine = got[(got["method"] == IVFS) & got["metric"].isin(metrics)].dropna(subset=["chance_best_of_g"])
        if mine.empty:
            return ""
        def count(column):
            said = pd.Series([C.chance_verdict(value, c, sd, m) for value, c, sd, m in
                              zip(mine[column], mine["chance_best_of_g"], mine["chance_std"], mine["metric"])],
                             index=mine.index)
            return ", ".join(f"{m} {C.verdict_count(said[mine['metric'] == m])}"
                             for m in metrics if (mine["metric"] == m).any())

        return (f" IVFS-linf beats Random, best of G = {int(mine['G'].iloc[0])} (the same selection), on "
                f"{count('reproduced')} datasets (the published values: {count('published')}).")

    out = ["# IVFS claims: verdicts computed from this run", "",
           f"Datasets with results: {n_sets}. 'Best' = smallest (largest for KNN) over SPEC, MCFS, GLSPFS, "
           "IVFS-linf; a tie counts as best.", ""]
    topo = [wins[m] for m in ("w11", "winf")]
    almost = all(n and w >= n - max(1, n // 5) for w, n, _ in topo)
    norms = all(wins[m][0] == wins[m][1] > 0 for m in ("Linf", "L1_over_n2", "L2"))
    topo_id = "IVFS/T1-topology-norms"
    out += ["## T1: smallest w11 and winf on almost all datasets, smallest L1, L2, Linf norms on all",
            verdict(topo_id, "T1: smallest w11 and winf on almost all datasets (all but at most max(1, n/5))", almost,
                    f"{line('w11')}; {line('winf')}; literal eps = 0.1: {line('w11_literal')}; "
                    f"{line('winf_literal')}." + chance(("w11", "winf", "w11_literal", "winf_literal"))),
            verdict(topo_id, "T1: smallest L1, L2, Linf norms on all datasets", norms,
                    f"{line('Linf')}; {line('L1_over_n2')}; {line('L2')}." + chance(("Linf", "L1_over_n2", "L2"))),
            ""]
    w, n, _ = wins["knn_acc"]
    out += ["## T1: best KNN accuracy on all datasets",
            verdict("IVFS/T1-knn", "T1: best KNN accuracy on all datasets", n > 0 and w == n,
                    f"{line('knn_acc')}." + chance(("knn_acc",))),
            ""]

    times = got[got["metric"] == "fit_seconds"].pivot(index="dataset", columns="method", values="reproduced")
    if {IVFS, "MCFS", "GLSPFS"} <= set(times.columns):
        ratio_mcfs = times[IVFS] / times["MCFS"]
        faster = int((times[IVFS] < times["GLSPFS"]).sum())
        ok = bool(ratio_mcfs.median() <= 2.0 and faster >= len(times) - max(1, len(times) // 5))
        claim = "T1/time: comparable to MCFS (median time ratio <= 2) and faster than GLSPFS"
        out += [f"## {claim}",
                verdict("IVFS/T1-time", claim, ok, f"IVFS/MCFS time ratio median {ratio_mcfs.median():.2f} "
                        f"(range {ratio_mcfs.min():.2f}-{ratio_mcfs.max():.2f}); faster than GLSPFS on "
                        f"{faster}/{len(times)}."), ""]

    s = t2[t2["status"] == "ok"].pivot(index="dataset", columns="method", values="reproduced")
    if IVFS in s:
        others = s.drop(columns=IVFS)
        fewest = int((s[IVFS] <= others.min(axis=1)).sum())
        ok = bool(s[IVFS].max() <= 19 and fewest == len(s))
        claim = ("T2: IVFS-linf nearly the same features after a bootstrap (<= 19 of the top features differ), "
                 "fewer than every other method")
        out += [f"## {claim}",
                verdict("IVFS/T2", claim, ok, f"IVFS-linf differences {s[IVFS].min():.1f}-{s[IVFS].max():.1f}; "
                        f"fewest on {fewest}/{len(s)}; others {others.min().min():.1f}-{others.max().max():.1f}."),
                ""]

    for cid, name, frame, metric in (("IVFS/Fig2", "Fig. 2", fig2, "L2"), ("IVFS/Fig3", "Fig. 3", fig3, "winf")):
        trend, spec_worst, total = _curve_claims(frame)
        claim = f"{name}: {metric} against the number of features; IVFS improves as features are added, SPEC is poor"
        most = total - max(1, total // 5)
        out += [f"## {claim}",
                verdict(cid, claim, trend >= most and spec_worst >= most,
                        f"IVFS-linf's {metric} at the largest count is below its value at the smallest on "
                        f"{trend}/{total}; SPEC is the worst method at the largest count on {spec_worst}/{total}."),
                ""]

    mean = fig4.groupby(["n_subsets", "subset_samples"])["relative"].mean().unstack()
    grows_n = bool((mean.diff(axis=1).iloc[:, 1:] >= -0.01).all().all())
    grows_k = bool((mean.diff(axis=0).iloc[1:] >= -0.01).all().all())
    corner = float(mean.iloc[0, 0])
    claim = "Fig. 4: performance grows with k and n~; k=1000, n~=0.1n is close to k=5000, n~=0.5n"
    out += [f"## {claim}",
            verdict("IVFS/Fig4", claim, grows_n and grows_k and corner >= 0.9,
                    f"relative performance (mean over metrics) at the smallest setting {corner:.3f}; non-decreasing "
                    f"in n~ (tolerance 0.01): {grows_n}, in k: {grows_k}."),
            "", markdown_table([[str(k), *(f"{v:.3f}" for v in row)] for k, row in mean.iterrows()],
                               ["k \\ n~/n", *(f"{c:g}" for c in mean.columns)])]
    return "\n".join(out), records


def _curve_claims(frame: pd.DataFrame) -> tuple[int, int, int]:
    trend = spec_worst = total = 0
    for _, part in frame.groupby("dataset"):
        ivfs = part[part["method"] == IVFS].sort_values("n_features")
        if ivfs.empty:
            continue
        total += 1
        trend += int(ivfs["mean"].iloc[-1] < ivfs["mean"].iloc[0])
        last = part[part["n_features"] == part["n_features"].max()]
        worst = last.loc[last["mean"].idxmax(), "method"]
        spec_worst += int(worst == "SPEC")
    return trend, spec_worst, total


def table1_values(long: pd.DataFrame) -> pd.DataFrame:
    """Table 1's reproduced values (dataset, method, metric, value) for the statistics over its datasets."""
    got = long[long["status"] == "ok"]
    return got.rename(columns={"reproduced": "value"})[["dataset", "method", "metric", "value"]]
