"""Statistics of the cross-paper benchmark: Friedman + Nemenyi across datasets, and every method against chance.

Two questions, two tests (choices and their reasons: docs/fidelity/benchmark.md):

* **Do the methods differ, and which pairs?** Per metric, the Friedman test on
  the datasets x methods table of ranks (``scipy.stats.friedmanchisquare``),
  then the Nemenyi post-hoc test (``scikit_posthocs.posthoc_nemenyi_friedman``)
  and a critical-difference diagram, as in Demsar (2006). The test needs a
  complete block: methods that did not run on every dataset with values are
  left out (and named); datasets without any value (not obtained) drop out.
  Pairs are declared different only when the Friedman test rejects first.
* **Does a method beat chance on a dataset?** The ``Random`` selector's R
  draws give the distribution of the summary value (mean over the counts) of
  a uniformly random subset. A method's value is compared with it by a
  prediction t-test: under the null hypothesis the method's runs are draws
  from the same (normal) distribution, so
  ``t = (mean_m - mean_R) / (s_R sqrt(1/n_m + 1/R))`` follows Student's t with
  R - 1 degrees of freedom (``s_R`` the standard deviation of Random's draws).
  Each verdict is **one test at alpha, not corrected**: better / not
  distinguishable / worse than Random on that dataset depends on the method's
  values and Random's draws there and on nothing else (not on which other
  methods or datasets run). What the benchmark states from these verdicts is a
  count over the datasets, and the count carries its own control of chance:
  with no method better than chance anywhere, each "better" has probability
  alpha / 2 on independent datasets, so a majority of n has the binomial
  probability ``majority_by_chance(n)`` (below 1e-12 at n = 26). Beside each
  verdict, the smallest difference the test can call better (``detectable_sd``;
  the power), the method's percentile among the draws and Random's 5-95 % band
  (free of the normality assumption).
* **Does a method beat chance across datasets?** Per method and metric the
  Wilcoxon signed-rank test of its values against Random's means, paired over
  the datasets (``across_datasets``), Holm over the unsupervised methods: the
  confirmatory test of the benchmark's findings.

A method that uses the labels (``uses_labels``: the positive controls, ANOVA F,
mRMR and KNN forward selection) is tested against Random in the same way and never ranked: it is in
no Friedman block and no CD diagram. ``rejudge`` applies this version's verdicts
and power to a comparison table written before (the shipped reference run's),
whose p-values stay valid.

``random_band`` gives that band per feature count, for curve figures.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

# scipy.stats, scikit_posthocs, statsmodels and pyplot are imported by the functions using them: start-up loads none
from ..results import higher_is_better
from ..tables import markdown_table
from . import REFERENCE  # the selector class whose draws are the chance reference
from . import benchmark as B
from .chance_band import BAND  # the quantiles of Random's draws shown as its band

ALPHA = 0.05
TESTED_METRICS = tuple(m for m in B.METRICS if m != "fit_seconds")  # a random order costs no time: no test
VERDICTS = ("better", "not distinguishable", "worse")
STATS_COLUMNS = ["metric", "n_datasets", "n_methods", "friedman_chi2", "friedman_p", "friedman_min_p",
                 "critical_difference", "method", "mean_rank", "other", "nemenyi_p"]


# ---- Friedman and Nemenyi across datasets -------------------------------------------------------

def rank_block(summary: pd.DataFrame, metric: str) -> tuple[pd.DataFrame, list[str]]:
    """The datasets x methods ranks of ``metric`` on the complete block, and the methods left out.

    Ranked methods (original space, run, unsupervised: a positive control is never ranked) with a value on every
    dataset that has any; ranks are recomputed within the block (1 = best, ties shared as in
    ``benchmark.rank_values``). Datasets and methods keep the summary's order.
    """
    part = summary[(summary["metric"] == metric) & (summary["status"] == B.OK) & (summary["space"] == "original")
                   & ~B.label_users(summary)]
    part = part.dropna(subset=["value"])
    values = part.pivot(index="dataset", columns="method", values="value")
    values = values.reindex(index=list(dict.fromkeys(part["dataset"])), columns=list(dict.fromkeys(part["method"])))
    left_out = [m for m in values.columns if values[m].isna().any()]
    values = values.drop(columns=left_out)
    ranks = values.apply(lambda row: B.rank_values(row, metric), axis=1)
    return ranks, left_out


def critical_difference(n_methods: int, n_datasets: int, alpha: float = ALPHA) -> float:
    """Nemenyi's critical difference of mean ranks (Demsar 2006, eq. 5): q_alpha sqrt(k (k + 1) / (6 N))."""
    from scipy import stats

    q_alpha = stats.studentized_range.ppf(1 - alpha, n_methods, np.inf) / np.sqrt(2)
    return float(q_alpha * np.sqrt(n_methods * (n_methods + 1) / (6 * n_datasets)))


def smallest_friedman_p(n_datasets: int, n_methods: int) -> float:
    """The smallest p-value the Friedman test can give on ``n_datasets`` x ``n_methods``, whatever the data.

    It is reached when every dataset ranks the methods alike: chi2 = N (k - 1), with k - 1 degrees of freedom.
    At or above alpha, the test cannot reject: "no difference" then says nothing about the methods.
    """
    from scipy import stats

    return float(stats.chi2.sf(n_datasets * (n_methods - 1), n_methods - 1))


def datasets_needed(n_methods: int, alpha: float = ALPHA) -> int:
    """The fewest datasets on which the Friedman test can reject at ``alpha`` for ``n_methods`` methods."""
    n = 2
    while smallest_friedman_p(n, n_methods) >= alpha:
        n += 1
    return n


def undecidable(res: dict, alpha: float = ALPHA) -> str:
    """Why the Friedman test of ``res`` cannot reject at ``alpha`` whatever the data, or "" when it can."""
    if not res["min_p"] >= alpha:  # NaN (no test) is said elsewhere
        return ""
    return (f"cannot decide: with {res['n_datasets']} datasets and {res['n_methods']} methods the Friedman p is at "
            f"least {res['min_p']:.2g} whatever the data (alpha {alpha}); it needs "
            f"{datasets_needed(res['n_methods'], alpha)} datasets or more")


def friedman_nemenyi(ranks: pd.DataFrame) -> dict:
    """Friedman chi-square and p, mean ranks, Nemenyi p-values and critical difference of a rank block.

    ``ranks`` is datasets x methods. With fewer than 3 methods or 2 datasets
    there is no test (NaN statistics, Nemenyi p-values of 1). ``min_p``: the smallest p these N and k allow.
    """
    import scikit_posthocs as sp
    from scipy import stats

    n, k = ranks.shape
    mean = ranks.mean(axis=0)
    out = {"n_datasets": n, "n_methods": k, "mean_ranks": mean, "chi2": np.nan, "p": np.nan, "min_p": np.nan,
           "cd": np.nan, "nemenyi": pd.DataFrame(1.0, index=mean.index, columns=mean.index)}
    if k < 3 or n < 2:
        return out
    out["min_p"] = smallest_friedman_p(n, k)
    if (ranks.nunique(axis=1) == 1).all():  # every dataset ties every method: nothing to tell apart
        return {**out, "chi2": 0.0, "p": 1.0, "cd": critical_difference(k, n)}
    result = stats.friedmanchisquare(*(ranks[m].to_numpy() for m in ranks.columns))
    nemenyi = sp.posthoc_nemenyi_friedman(ranks.to_numpy())
    nemenyi.index = nemenyi.columns = ranks.columns
    return {**out, "chi2": float(result.statistic), "p": float(result.pvalue), "cd": critical_difference(k, n),
            "nemenyi": nemenyi}


def benchmark_stats(summary: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, dict]]:
    """Per metric the Friedman and Nemenyi results: a long table (one row per ordered pair) and the raw results.

    The raw results (per metric: the ``friedman_nemenyi`` dict plus ``left_out``
    and ``ranks``) feed ``stats_markdown`` and ``cd_figure``.
    """
    rows, results = [], {}
    for metric in B.reported(summary):
        ranks, left_out = rank_block(summary, metric)
        res = {**friedman_nemenyi(ranks), "left_out": left_out, "ranks": ranks, "controls": B.controls(summary)}
        results[metric] = res
        for method, rank in res["mean_ranks"].items():
            for other in res["mean_ranks"].index.drop(method):
                rows.append({"metric": metric, "n_datasets": res["n_datasets"], "n_methods": res["n_methods"],
                             "friedman_chi2": res["chi2"], "friedman_p": res["p"], "friedman_min_p": res["min_p"],
                             "critical_difference": res["cd"],
                             "method": method, "mean_rank": rank, "other": other,
                             "nemenyi_p": res["nemenyi"].loc[method, other]})
    return pd.DataFrame(rows, columns=STATS_COLUMNS), results


def _different(res: dict, alpha: float = ALPHA) -> pd.DataFrame:
    """The Nemenyi p-values as used for conclusions: all 1 (no pair differs) unless the Friedman test rejects."""
    if res["p"] < alpha:
        return res["nemenyi"]
    return pd.DataFrame(1.0, index=res["nemenyi"].index, columns=res["nemenyi"].columns)


BENCHMARK_VALUES = ("each dataset's summary value (mean over the evaluated counts, then over repetitions; Random: "
                    "over its draws)")


def stats_markdown(results: dict[str, dict], alpha: float = ALPHA, heading: str = B.TITLE, *,
                   values: str = BENCHMARK_VALUES, figure: str = "cd.png") -> str:
    """The report under ``heading``: the Friedman table, the mean ranks, per metric the pairs Nemenyi tells apart.

    ``values`` (what is ranked) and ``figure`` (the CD diagrams' file) name what was tested."""
    parts = [
        f"# {heading}: Friedman and Nemenyi tests\n",
        f"Per metric, the Friedman test of the methods' ranks over the datasets, then the Nemenyi post-hoc test "
        f"(Demsar 2006), at alpha = {alpha}. Ranks are those of {values}, 1 = best, recomputed within the "
        "complete block: a method that did not run on every dataset is left out of that metric's test. "
        "Pairs are only declared different when the Friedman test rejects. CD: the critical difference of "
        f"mean ranks; figure `{figure}`. Smallest p: the smallest p-value the test can give these numbers of "
        "datasets and methods, whatever the data (every dataset ranking the methods alike).\n",
    ]
    rows = [[B.METRIC_LABELS[m], str(r["n_datasets"]), str(r["n_methods"]), B._fmt(r["chi2"], 4), _pfmt(r["p"]),
             _pfmt(r["min_p"]) + (" (cannot decide)" if undecidable(r, alpha) else ""), B._fmt(r["cd"], 3),
             ", ".join(r["left_out"]) or "–"] for m, r in results.items()]
    parts.append(markdown_table(rows, ["metric", "datasets", "methods", "Friedman χ²", "p", "smallest p", "CD",
                                       "left out"]))
    supervised = list(dict.fromkeys(m for r in results.values() for m in r.get("controls", [])))
    if supervised:
        parts.append(f"Not in any test: {', '.join(m + B.CONTROL_MARK for m in supervised)}, {B.CONTROL} (it reads "
                     "the labels the label metrics are scored with: never ranked with the unsupervised methods).\n")
    blind = {undecidable(r, alpha) for r in results.values()} - {""}
    parts += [f"**The test cannot decide**: {why}. \"No difference\" below says nothing about the methods; add "
              "datasets to compare them.\n" for why in sorted(blind)]
    methods = list(dict.fromkeys(m for r in results.values() for m in r["mean_ranks"].index))
    rows = [[m] + [B._fmt(r["mean_ranks"].get(m, np.nan), 3) for r in results.values()] for m in methods]
    parts += ["## Mean ranks in the tests (1 = best)\n",
              markdown_table(rows, ["method"] + [B.METRIC_LABELS[m] for m in results])]
    parts.append("## Pairs that differ (Nemenyi p < alpha after a rejecting Friedman test)\n")
    for metric, res in results.items():
        p = _different(res, alpha)
        mean = res["mean_ranks"]
        pairs = [f"{a} ({mean[a]:.2f}) < {b} ({mean[b]:.2f}): p {_pfmt(p.loc[a, b])}"
                 for a in mean.index for b in mean.index if mean[a] < mean[b] and p.loc[a, b] < alpha]
        parts.append(f"- {B.METRIC_LABELS[metric]}: " + ("; ".join(pairs) if pairs else "none") + ".")
    return "\n".join(parts) + "\n"


def cd_figure(results: dict[str, dict], alpha: float = ALPHA, heading: str = B.TITLE):
    """One critical-difference diagram per metric (Random in red): mean ranks, bars join indistinguishable methods."""
    import scikit_posthocs as sp
    from matplotlib import pyplot as plt

    metrics = list(results)
    rows = max(1, max(r["n_methods"] for r in results.values()) + 1) // 2  # label rows under each axis
    # more than 3 panels in two columns: a figure wider than tall, whole in a browser window at the report's width
    ncols = 2 if len(metrics) > 3 else 1
    nrows = -(-len(metrics) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(11 if ncols == 1 else 17, (1.0 + 0.24 * rows) * nrows + 0.9),
                             squeeze=False, layout="constrained")
    fig.get_layout_engine().set(w_pad=1.3)  # the method labels are drawn outside the axes: room on both sides
    for ax in axes.flat[len(metrics):]:
        ax.set_axis_off()
    for ax, metric in zip(axes.flat, metrics):
        res = results[metric]
        direction = "higher" if higher_is_better(metric) else "lower"
        title = f"{B.METRIC_LABELS[metric]} ({direction} is better)"
        if res["n_methods"] < 3 or res["n_datasets"] < 2:
            ax.set_axis_off()
            ax.set_title(f"{title}: no test ({res['n_methods']} methods on {res['n_datasets']} datasets)",
                         fontsize=9)
            continue
        mean = res["mean_ranks"]
        palette = {m: ("tab:red" if m == REFERENCE else "0.25") for m in mean.index}
        sp.critical_difference_diagram(mean, _different(res, alpha), ax=ax, color_palette=palette,
                                       label_props={"fontsize": 8}, label_fmt_left="{label} ({rank:.2f})",
                                       label_fmt_right="({rank:.2f}) {label}")
        verdict = "differ" if res["p"] < alpha else (undecidable(res, alpha) or "no difference shown")
        if undecidable(res, alpha):  # on lines of its own, within the panel's width
            verdict = "\n" + verdict.replace(" the Friedman p", "\nthe Friedman p") + "\n"
        ax.set_title(f"{title}: Friedman χ² {res['chi2']:.3g}, p {_pfmt(res['p'])} ({verdict}); "
                     f"{res['n_datasets']} datasets, CD {res['cd']:.2f}"
                     + (f"; left out: {', '.join(res['left_out'])}" if res["left_out"] else ""),
                     fontsize=9, pad=22)
    supervised = list(dict.fromkeys(m for r in results.values() for m in r.get("controls", [])))
    fig.suptitle(f"{heading}: critical-difference diagrams (mean rank over datasets, 1 = best)\n"
                 f"a bar joins methods the Nemenyi test cannot tell apart at alpha = {alpha}; Random in red"
                 + (f"; not ranked: {', '.join(supervised)} ({B.CONTROL})" if supervised else ""),
                 fontsize=10)
    return fig


# ---- every method against Random ---------------------------------------------------------------

RAW_COLUMNS = ["family", "dataset", "method", "uses_labels", "metric", "value", "runs", "random", "random_sd",
               "draws", "random_p05", "random_p95", "percentile", "t", "p"]
VS_COLUMNS = RAW_COLUMNS + ["verdict", "min_diff", "min_diff_sd"]
ACROSS_COLUMNS = ["method", "uses_labels", "metric", "n_datasets", "better_than_mean", "median_percentile",
                  "statistic", "p", "p_holm", "verdict"]
CONTROL_NOTE = (f"{B.CONTROL_MARK} {B.CONTROL}: a supervised selector (it reads the class labels the label metrics "
                "are scored with), run to show what the test can detect; tested against Random like every method, "
                "never ranked and never counted with the unsupervised methods.")


def reference_methods(planned: pd.DataFrame) -> dict[str, str]:
    """Per dataset the label of its Random method (datasets without one are absent)."""
    ref = planned[(planned["selector"] == REFERENCE) & (planned["status"] == B.OK)]
    several = ref.groupby("dataset")["method"].nunique()
    if (several > 1).any():
        raise ValueError(f"one {REFERENCE} method per dataset expected; several on {list(several[several > 1].index)}.")
    return dict(zip(ref["dataset"], ref["method"]))


def prediction_t_test(x: np.ndarray, draws: np.ndarray) -> tuple[float, float]:
    """t and two-sided p of the mean of ``x`` against the distribution sampled by ``draws`` (see module doc).

    Random draws that all agree give t = +-inf (p = 0) for a different value,
    t = 0 (p = 1) for the same; fewer than 2 draws give NaN (no test).
    """
    from scipy import stats

    r = draws.size
    if r < 2:
        return np.nan, np.nan
    diff = x.mean() - draws.mean()
    scale = draws.std(ddof=1) * np.sqrt(1 / x.size + 1 / r)
    if scale == 0:
        return (0.0, 1.0) if diff == 0 else (float(np.sign(diff) * np.inf), 0.0)
    t = diff / scale
    return float(t), float(2 * stats.t.sf(abs(t), r - 1))


def _percentile(value: float, draws: np.ndarray, metric: str) -> float:
    """Share of Random's draws the value beats in the metric's direction (ties count half)."""
    better = draws < value if higher_is_better(metric) else draws > value
    return float((better.sum() + 0.5 * (draws == value).sum()) / draws.size)


def versus_random(metrics: pd.DataFrame, planned: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Per dataset, metric and tested method: the test against that dataset's Random draws, the verdict, the power.

    ``metrics`` is the long table of the experiments, ``planned`` the plan
    (``benchmark.plan``). Methods of a derived space (kernel UDFS) are left
    out, as from the ranks; a method that uses the labels (a positive control) is tested, marked
    ``uses_labels``. The verdicts and the power columns are ``judge``'s: one test per verdict, so a method's
    verdicts do not depend on which other methods or datasets run.
    """
    runs = B.per_run(metrics)
    runs = runs[runs["metric"].isin(TESTED_METRICS)]
    refs = reference_methods(planned)
    ok = planned[(planned["status"] == B.OK) & (planned["space"] == "original") & planned["dataset"].isin(refs)]
    family = dict(zip(planned["dataset"], planned["family"]))
    supervised = dict(zip(ok["method"], B.label_users(ok)))
    values = {key: g["value"].to_numpy() for key, g in runs.groupby(["dataset", "method", "metric"])}
    rows = []
    for dataset, method in zip(ok["dataset"], ok["method"]):
        if method == refs[dataset]:
            continue
        for metric in TESTED_METRICS:
            x, draws = values.get((dataset, method, metric)), values.get((dataset, refs[dataset], metric))
            if x is None or draws is None:
                continue
            t, p = prediction_t_test(x, draws)
            low, high = np.quantile(draws, BAND)
            rows.append({"family": family[dataset], "dataset": dataset, "method": method,
                         "uses_labels": bool(supervised[method]), "metric": metric, "value": x.mean(), "runs": x.size,
                         "random": draws.mean(), "random_sd": draws.std(ddof=1) if draws.size > 1 else np.nan,
                         "draws": draws.size, "random_p05": low, "random_p95": high,
                         "percentile": _percentile(x.mean(), draws, metric), "t": t, "p": p})
    return judge(pd.DataFrame(rows, columns=RAW_COLUMNS), alpha)


def judge(table: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """``table`` (columns ``RAW_COLUMNS``: one test per dataset, method and metric) with its verdicts and power.

    ``verdict``: better / not distinguishable / worse than Random, from the row's own p at ``alpha`` (no
    correction: see the module doc). ``min_diff`` (the metric's units) and ``min_diff_sd`` (in Random's standard
    deviations): the smallest difference from Random's mean, in the metric's better direction, that the test
    calls better (``detectable_sd``).
    """
    table = table.reset_index(drop=True).copy()
    if table.empty:
        return pd.DataFrame(columns=VS_COLUMNS)
    table["uses_labels"] = B.label_users(table)
    table["verdict"] = [_verdict(r.value - r.random, r.p, r.metric, r.draws, alpha) for r in table.itertuples()]
    table["min_diff_sd"] = [detectable_sd(r.draws, r.runs, 1, alpha) for r in table.itertuples()]
    table["min_diff"] = table["min_diff_sd"] * table["random_sd"]
    return table[VS_COLUMNS]


def detectable_sd(draws: int, runs: int = 1, family_size: int = 1, alpha: float = ALPHA) -> float:
    """The smallest |mean_m - mean_R| / s_R the prediction t-test rejects at alpha / family_size, two-sided.

    t_{R-1}(1 - alpha / (2 k)) sqrt(1/n + 1/R) for R draws and n runs; k = ``family_size`` > 1 gives what a
    correction over k tests would ask (Holm's first step, Bonferroni's every step); the benchmark's verdicts
    use k = 1. NaN with fewer than 2 draws (no test).
    """
    from scipy import stats

    if draws < 2:
        return np.nan
    return float(stats.t.ppf(1 - alpha / (2 * family_size), draws - 1) * np.sqrt(1 / runs + 1 / draws))


def detectable_limit(runs: int = 1, family_size: int = 1, alpha: float = ALPHA) -> float:
    """``detectable_sd`` with infinitely many draws: z(1 - alpha / (2 k)) sqrt(1/n). No number of draws goes below:
    the test asks whether the method lies beyond the spread of random subsets, which more draws only measure better."""
    from scipy import stats

    return float(stats.norm.ppf(1 - alpha / (2 * family_size)) / np.sqrt(runs))


def draws_needed(target_sd: float, runs: int = 1, family_size: int = 1, alpha: float = ALPHA,
                 max_draws: int = 1_000_000) -> int | None:
    """The fewest draws R with ``detectable_sd(R, runs, family_size, alpha) <= target_sd``; None when none does
    (``target_sd`` at or below ``detectable_limit``, or beyond ``max_draws``)."""
    if not target_sd > detectable_limit(runs, family_size, alpha) or detectable_sd(max_draws, runs, family_size,
                                                                                   alpha) > target_sd:
        return None
    low, high = 2, max_draws  # detectable_sd decreases with R: bisect
    while low < high:
        mid = (low + high) // 2
        if detectable_sd(mid, runs, family_size, alpha) <= target_sd:
            high = mid
        else:
            low = mid + 1
    return low


def random_sd_from_t(table: pd.DataFrame) -> pd.Series:
    """Random's standard deviation per row of a comparison table that lacks it, from t (``prediction_t_test``):
    s_R = (value - random) / (t sqrt(1/runs + 1/draws)); per dataset and metric the median over the methods
    with a finite non-zero t (they share one s_R, up to the table's rounding). NaN where no method has one."""
    t = pd.to_numeric(table["t"], errors="coerce")
    usable = np.isfinite(t) & (t != 0)
    est = (table["value"] - table["random"]) / (t * np.sqrt(1 / table["runs"] + 1 / table["draws"]))
    per = est[usable].groupby([table["dataset"][usable], table["metric"][usable]]).median()
    keys = pd.MultiIndex.from_frame(table[["dataset", "metric"]])
    return pd.Series(per.reindex(keys).to_numpy(), index=table.index)


def rejudge(table: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """A comparison table written by an earlier version (e.g. the shipped ``reference/all_selectors/vs_random.csv``:
    p per test, Holm over the methods of a dataset or over a method's datasets) judged again with ``judge``: the
    p-values are kept (the same test), Random's sd is recovered from t where the table lacks it
    (``random_sd_from_t``), and the verdicts and the power columns are this version's. Nothing is rerun: the tests need only each row's value,
    runs, Random's mean, sd and draws."""
    table = table.copy()
    if "random_sd" not in table:
        table["random_sd"] = random_sd_from_t(table)
    table["uses_labels"] = B.label_users(table)
    return judge(table[RAW_COLUMNS], alpha)


def across_datasets(table: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Per method and metric, the Wilcoxon signed-rank test of its value against Random's mean over the datasets.

    Paired and two-sided (``scipy.stats.wilcoxon``; zero differences dropped, as Wilcoxon did); Holm over the
    unsupervised methods of each metric (a method that uses the labels is a family of its own: p_holm = p).
    ``better_than_mean``: datasets where the method is on the better side of Random's mean; ``median_percentile``
    (the effect size): the median over the datasets of the method's percentile among Random's draws (0.5: an
    average random subset). ``verdict``: better / worse when the Holm-corrected p < alpha, by the sign of the
    signed-rank sum in the metric's better direction.
    """
    from scipy import stats

    rows = []
    for (method, metric), group in table.groupby(["method", "metric"], sort=False):
        sign = 1.0 if higher_is_better(metric) else -1.0
        diff = (sign * (group["value"] - group["random"])).to_numpy(dtype=float)
        diff = diff[np.isfinite(diff)]
        nonzero = diff[diff != 0]
        statistic, p, direction = np.nan, np.nan, 0.0
        if nonzero.size:
            result = stats.wilcoxon(nonzero)
            statistic, p = float(result.statistic), float(result.pvalue)
            ranks = stats.rankdata(np.abs(nonzero))
            direction = np.sign(ranks[nonzero > 0].sum() - ranks[nonzero < 0].sum())
        rows.append({"method": method, "uses_labels": bool(B.label_users(group).any()), "metric": metric,
                     "n_datasets": int(diff.size), "better_than_mean": int((diff > 0).sum()),
                     "median_percentile": float(group["percentile"].median()), "statistic": statistic, "p": p,
                     "_direction": direction})
    out = pd.DataFrame(rows, columns=ACROSS_COLUMNS[:-2] + ["_direction"])
    if out.empty:
        return pd.DataFrame(columns=ACROSS_COLUMNS)
    out["p_holm"] = out["p"]
    unsupervised = ~out["uses_labels"].astype(bool)
    out.loc[unsupervised, "p_holm"] = out[unsupervised].groupby("metric")["p"].transform(_holm)
    out["verdict"] = [("not distinguishable" if not p < alpha else "better" if d > 0 else "worse" if d < 0
                       else "not distinguishable") if np.isfinite(p) else "untested"
                      for p, d in zip(out["p_holm"], out["_direction"])]
    return out[ACROSS_COLUMNS]


def power_summary(table: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """Per metric what the per-dataset test can call better: the smallest difference it calls better (in
    Random's sds, for the median number of draws), the limit with infinitely many draws, the median over the
    datasets of that difference in the metric's units, the chance of a majority of "better" verdicts with no
    method better than chance (``majority_by_chance``), and, per positive control that ran, its median effect
    (in Random's sds), its "better" count and the draws that would bring the threshold down to that effect
    (None: no number of draws does)."""
    rows = []
    for metric, part in table.groupby("metric", sort=False):
        per = part.drop_duplicates("dataset")
        draws, runs = int(per["draws"].median()), int(part["runs"].median())
        n = per["dataset"].nunique()
        row = {"metric": metric, "datasets": n, "draws": draws, "min_diff_sd": detectable_sd(draws, runs, 1, alpha),
               "limit_sd": detectable_limit(runs, 1, alpha), "median_min_diff": float(per["min_diff"].median()),
               "majority_by_chance": majority_by_chance(n, alpha)}
        for method, control in part[B.label_users(part)].groupby("method", sort=False):
            sign = 1.0 if higher_is_better(metric) else -1.0
            effect = float((sign * (control["value"] - control["random"]) / control["random_sd"]).median())
            rows.append({**row, "control": method, "control_effect_sd": effect,
                         "control_better": int((control["verdict"] == "better").sum()),
                         "control_datasets": int(control["dataset"].nunique()),
                         "draws_for_control": draws_needed(effect, runs, 1, alpha)})
        if not (rows and rows[-1]["metric"] == metric):
            rows.append(row)
    return pd.DataFrame(rows)


def majority_by_chance(n_datasets: int, alpha: float = ALPHA) -> float:
    """P(more than half of ``n_datasets`` verdicts are "better") when no method is better than chance anywhere:
    each "better" then has probability alpha / 2 (the upper tail of the two-sided test), independently over the
    datasets, so the count is Binomial(n, alpha / 2). The control of chance of a majority claim."""
    from scipy import stats

    return float(stats.binom.sf(n_datasets // 2, n_datasets, alpha / 2)) if n_datasets else np.nan


def random_band(metrics: pd.DataFrame, method: str = REFERENCE, quantiles: tuple[float, float] = BAND,
                by: tuple[str, ...] = ("dataset",)) -> pd.DataFrame:
    """Per dataset, metric and count the band of ``method``'s repetitions (Random's draws) that a curve figure shades.

    ``metrics`` is a long metric table (one row per run, count and metric);
    returns columns ``by`` (default dataset), metric, n_features, low, median,
    high (the ``quantiles`` and the median of the draws at that count) and draws.
    """
    keys = [*by, "metric", "n_features"]
    part = metrics[(metrics["method"] == method) & metrics["n_features"].notna()]
    if part.empty:
        return pd.DataFrame(columns=[*keys, "low", "median", "high", "draws"])
    values = part.groupby(keys)["value"]
    band = pd.DataFrame({"low": values.quantile(quantiles[0]), "median": values.median(),
                         "high": values.quantile(quantiles[1]), "draws": values.size()})
    return band.reset_index()


def _holm(p: pd.Series) -> pd.Series:
    """Holm-adjusted p-values; NaN (untested) stays NaN and does not count as a hypothesis."""
    from statsmodels.stats.multitest import multipletests

    out = pd.Series(np.nan, index=p.index)
    tested = p.notna()
    if tested.any():
        out[tested] = multipletests(p[tested].to_numpy(), method="holm")[1]
    return out


def _verdict(diff: float, p: float, metric: str, draws: int, alpha: float) -> str:
    if np.isnan(p):
        return f"untested ({draws} {REFERENCE} draw)"
    if p >= alpha:
        return "not distinguishable"
    return "better" if (diff > 0) == higher_is_better(metric) else "worse"


def verdict_counts(table: pd.DataFrame) -> pd.DataFrame:
    """Per method and metric the number of datasets where it is better / not distinguishable / worse than Random."""
    counts = table.groupby(["method", "metric"])["verdict"].value_counts().unstack(fill_value=0)
    return counts.reindex(columns=list(VERDICTS), fill_value=0).reset_index()


def majority_better(table: pd.DataFrame) -> pd.Series:
    """Per (method, metric) whether the method is better than Random on more than half of the datasets it ran on."""
    better = table["verdict"].eq("better").groupby([table["method"], table["metric"]]).sum()
    ran = table.groupby(["method", "metric"])["dataset"].nunique()
    return better > ran / 2


def control_coverage(table: pd.DataFrame) -> pd.DataFrame:
    """Per metric, the datasets where at least one positive control is called better than Random, of those where
    one ran (columns metric, better, datasets): where none is, no test of "better than a random subset" says yes
    for a selector that reads the labels, so a "not distinguishable" there says little about a method."""
    part = table[B.label_users(table)]
    better = part["verdict"].eq("better").groupby([part["metric"], part["dataset"]]).any().groupby("metric")
    out = pd.DataFrame({"better": better.sum(), "datasets": better.size()}).reset_index()
    order = {m: i for i, m in enumerate(dict.fromkeys(table["metric"]))}
    return out.sort_values("metric", key=lambda m: m.map(order)).reset_index(drop=True)


def shown(method: str, table: pd.DataFrame) -> str:
    """``method`` as the tables show it: marked when it uses the labels (a positive control)."""
    return method + B.CONTROL_MARK if method in B.controls(table) else method


def versus_random_markdown(table: pd.DataFrame, alpha: float = ALPHA, heading: str = B.TITLE,
                           across: pd.DataFrame | None = None) -> str:
    """The report under ``heading``: per method and metric the verdict counts and the test across datasets
    (``across``, default ``across_datasets(table)``), per metric what the test can detect, then per metric each
    dataset's values with Random's band. The positive controls (methods that use the labels) are a section of
    their own in each."""
    parts = [
        f"# {heading}: every method against {REFERENCE}\n",
        f"{REFERENCE} ranks the features in a uniformly random order; its R draws (repetitions) give the "
        "distribution of a random subset's summary value (mean over the evaluated counts). **Per dataset**, a "
        "method's value (mean over its runs) is compared with it by a prediction t-test (df = R - 1), two-sided, "
        f"at alpha = {alpha}, one test per verdict (not corrected: a verdict depends on that method and dataset "
        "only); a count of \"better\" over the datasets is the statistic, and a majority of them has a chance "
        "probability stated below. **Across datasets**, the Wilcoxon "
        f"signed-rank test of the method's values against {REFERENCE}'s means (paired over the datasets, "
        "two-sided), Holm over the unsupervised methods of a metric. Percentile: share of "
        f"{REFERENCE}'s draws the method beats. Fit time is not tested. Choices and reasons: "
        "docs/fidelity/benchmark.md.\n",
    ]
    if table.empty:
        return "\n".join(parts + [f"No dataset has a {REFERENCE} method with results: nothing to compare.\n"])
    across = across_datasets(table, alpha) if across is None else across
    counts = verdict_counts(table).set_index(["method", "metric"])
    cross = across.set_index(["method", "metric"])
    supervised = B.controls(table)
    methods = [m for m in dict.fromkeys(table["method"]) if m not in supervised]
    metrics = [m for m in TESTED_METRICS if m in set(table["metric"])]
    header = ["method"] + [B.METRIC_LABELS[k] for k in metrics]
    rows = [[m] + [_counts_cell(counts, m, k) for k in metrics] for m in methods]
    parts += [f"## Datasets where each method is better / not distinguishable / worse than {REFERENCE}\n",
              markdown_table(rows, header)]
    if supervised:
        rows = [[shown(m, table)] + [_counts_cell(counts, m, k) for k in metrics] for m in supervised]
        cover = control_coverage(table).set_index("metric")
        rows.append([f"any of them{B.CONTROL_MARK}"] + [
            f"{int(cover.loc[k, 'better'])} of {int(cover.loc[k, 'datasets'])} better" if k in cover.index else "–"
            for k in metrics])
        parts += [f"### {B.CONTROL.capitalize()}\n", CONTROL_NOTE + " Any of them: the datasets where at least one "
                  "is called better, where the test can say yes for a selector that reads the labels.\n",
                  markdown_table(rows, header)]
    rows = [[m] + [_across_cell(cross, m, k) for k in metrics] for m in methods]
    parts += [f"## Across datasets: Wilcoxon signed-rank test against {REFERENCE}'s mean\n",
              f"▲ better, ▼ worse (Holm over the methods of a metric, p < {alpha}); the number: the median over the "
              f"datasets of the method's percentile among {REFERENCE}'s draws (0.5: an average random subset); p "
              "Holm-corrected.\n", markdown_table(rows, header)]
    if supervised:
        rows = [[shown(m, table)] + [_across_cell(cross, m, k) for k in metrics] for m in supervised]
        parts += [f"### {B.CONTROL.capitalize()} (each a family of its own: p not corrected)\n",
                  markdown_table(rows, header)]
    parts += ["## What the per-dataset test can detect\n", power_markdown(power_summary(table, alpha), alpha)]
    mark = {"better": " ▲", "worse": " ▼", "not distinguishable": ""}
    columns = methods + supervised
    for metric in metrics:
        part = table[table["metric"] == metric]
        direction = "higher" if higher_is_better(metric) else "lower"
        rows = []
        for dataset, group in part.groupby("dataset", sort=False):
            cells = group.set_index("method")
            first = cells.iloc[0]
            band = f"{B._fmt(first['random'])} [{B._fmt(first['random_p05'])}, {B._fmt(first['random_p95'])}]"
            rows.append([first["family"], dataset, band, B._fmt(first["min_diff"])] + [
                B._fmt(cells.loc[m, "value"]) + mark.get(cells.loc[m, "verdict"], " ?") if m in cells.index else ""
                for m in columns])
        parts += [f"## {B.METRIC_LABELS[metric]} (`{metric}`, {direction} is better)\n",
                  f"▲ better, ▼ worse than {REFERENCE} (p < {alpha}); no mark: not "
                  f"distinguishable. {REFERENCE}: mean of the draws [5 %, 95 % quantiles]; detectable: the smallest "
                  "difference from that mean the test calls better."
                  + (f" {CONTROL_NOTE}" if supervised else "") + "\n",
                  markdown_table(rows, ["family", "dataset", f"{REFERENCE} [5-95 %]", "detectable"]
                                 + [shown(m, table) for m in columns])]
    return "\n".join(parts)


def power_markdown(power: pd.DataFrame, alpha: float = ALPHA) -> str:
    """``power_summary`` as a markdown table with a sentence on what it means."""
    has_control = "control" in power
    rows = []
    for r in power.itertuples():
        row = [B.METRIC_LABELS.get(r.metric, r.metric), str(r.datasets), str(r.draws), f"{r.min_diff_sd:.2f}",
               f"{r.limit_sd:.2f}", f"{r.majority_by_chance:.1e}"]
        if has_control:
            control = getattr(r, "control", None)
            shown_control = "–" if not isinstance(control, str) else control + B.CONTROL_MARK
            need = getattr(r, "draws_for_control", None)
            row += [shown_control] + (["–"] * 3 if shown_control == "–" else [
                f"{r.control_effect_sd:.2f}", f"{int(r.control_better)} of {int(r.control_datasets)}",
                "none" if need is None or pd.isna(need) else f"{int(need):,}"])
        rows.append(row)
    header = ["metric", "datasets", "draws R", "detectable (sd)", "R = ∞ (sd)", "a majority by chance"]
    if has_control:
        header += ["control", "its median effect (sd)", "better", "draws for that effect"]
    return ("In Random's standard deviations s_R: the smallest |method - Random's mean| the prediction t-test "
            f"calls better is t_(R-1)(1 - alpha / 2) sqrt(1 + 1/R) s_R (alpha = {alpha}); with infinitely many "
            "draws it falls only to z(1 - alpha / 2) s_R: the test asks whether one method lies beyond the spread "
            "of random subsets, which more draws measure better but do not shrink. A majority by chance: the "
            "probability that more than half of the datasets give \"better\" when no method is better than chance "
            "anywhere (Binomial(n, alpha / 2)).\n\n" + markdown_table(rows, header))


def _counts_cell(counts: pd.DataFrame, method: str, metric: str) -> str:
    if (method, metric) not in counts.index:
        return "–"
    c = counts.loc[(method, metric)]
    return " / ".join(str(int(c[v])) for v in VERDICTS)


def _across_cell(across: pd.DataFrame, method: str, metric: str) -> str:
    if (method, metric) not in across.index:
        return "–"
    r = across.loc[(method, metric)]
    mark = {"better": "▲ ", "worse": "▼ "}.get(r["verdict"], "")
    return f"{mark}{r['median_percentile']:.2f} (p {_pfmt(r['p_holm'])})"


def _pfmt(p) -> str:
    return "–" if pd.isna(p) else (f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}")


# ---- a paper's main table with added methods --------------------------------------------------------

def paper_table_stats(values: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, dict]]:
    """The benchmark's Friedman + Nemenyi tests over a paper's datasets, on the values of its main table.

    ``values``: one value per dataset, method and metric (columns dataset, method, metric, value; the paper's
    methods and those added by ``extra_methods``), e.g. Table 1's best of each method. Every row counts as a run
    method on the original features, so the block is the methods with a value on every dataset.
    """
    summary = values.dropna(subset=["value"]).assign(status=B.OK, space="original")
    return benchmark_stats(summary)
