"""Rewrite the run's tables in README.md, docs/performance.md and docs/results.md from the reference (not a test).

    python benchmarks/run_docs.py [--results reference]

Reads the shipped reference folder (``ufskit reference`` writes it from a finished full run): its
``full_run.csv`` (benchmarks/full_run.py: wall time, jobs, peak memory and slowest rules per part),
``scorecard.csv`` (every published number and claim beside the run's) and ``provenance.json`` (commit, machine,
date), and replaces, in each page, the block between ``<!-- run:NAME -->`` and ``<!-- /run:NAME -->`` with the
table made from them, so that no page types a number of the run by hand. A file the folder lacks leaves its
block as it is (and says so), but the README's status, which then says that the reference run is not shipped yet.
Run it from the repository root.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from pathlib import Path

import pandas as pd

from ufskit.papers import scored
from ufskit.scorecard import best_outcomes

REPO = Path(__file__).resolve().parents[1]
# benchmarks/full_run.py's part labels, as the tables name them
PART_NAMES = {
    "ivfs": "IVFS",
    "benchmark": "benchmark",
    "nrfs_synthetic_microarray": "NRFS synthetic and microarray (+ 2 readings)",
    "nrfs_text": "NRFS text",
    "nrfs_text_l2": "NRFS text, plain L2 reading",
    "ils": "ILS",
    "kudfs": "kernel UDFS (+ 2 readings)",
    "generic": "baselines",
    "default_target": "default target (scorecard, benchmark tables, the rest)",
}
MAIN = "main"
# the all-selector table's trivial baseline beside Random: its majorities are shown but not counted
TRIVIAL = "Variance"
CLAIM_VERDICTS = ("holds", "partly holds", "does not hold")


def markdown(header: list[str], rows: list[list]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def full_run_table(table: pd.DataFrame, folder: Path | None = None) -> str:
    """The parts of a full run, slowest first, and their total: wall time, jobs, peak RSS, slowest rules; for a
    table of benchmarks/full_run.py that records them, also each part's job-CPU, which parts were resumed (their
    wall time covers what was left) and the commit the parts ran."""
    recorded = "job_cpu" in table  # an earlier version wrote neither job-CPU, resumed nor commit
    parts = table[table["part"] != "total"].sort_values("wall_s", ascending=False)
    rows = []
    for p in parts.itertuples(index=False):
        name = PART_NAMES.get(p.part, p.part) + (" (resumed)" if recorded and str(p.resumed) == "True" else "")
        rows.append([name, p.wall, *([p.job_cpu] if recorded else []), f"{p.jobs:,}", _gigabytes(p.peak_rss_mb),
                     re.sub(r" min\b", "", p.slowest_rules)])
    total = table[table["part"] == "total"].iloc[0]
    rows.append(["**total**", f"**{total['wall']}**", *([f"**{total['job_cpu']}**"] if recorded else []),
                 f"**{int(total['jobs']):,}**", f"**{_gigabytes(total['peak_rss_mb'])}**", ""])
    header = ["part", "wall", *(["job CPU"] if recorded else []), "jobs", "peak RSS", "slowest rules (job-minutes)"]
    text = markdown(header, rows)
    if recorded:
        text += "\n\n" + _full_run_note(parts)
    return text


def _gigabytes(megabytes) -> str:
    """``0.52 GB``; "" for a part that ran no job with a benchmark file (no peak RSS)."""
    value = pd.to_numeric(megabytes, errors="coerce")
    return "" if pd.isna(value) else f"{value / 1024:.2f} GB"


def _full_run_note(parts: pd.DataFrame) -> str:
    """Below the full-run table: what job CPU counts, which commit the parts ran, and what resumed means."""
    commits = {}
    for p in parts.itertuples(index=False):
        key = f"`{str(p.commit)[:10]}`" + (" with uncommitted changes" if str(p.dirty) == "True" else "")
        commits.setdefault(key, []).append(PART_NAMES.get(p.part, p.part))
    ran = (f"every part at commit {next(iter(commits))}" if len(commits) == 1 else
           "the parts at commits " + "; ".join(f"{c} ({', '.join(names)})" for c, names in commits.items()))
    resumed = int(parts["resumed"].astype(str).eq("True").sum())
    return ("Job CPU: the CPU seconds of the part's jobs from their `benchmark:` files (the tables and figures, "
            f"which have none, aside); {ran}" + (f"; {resumed} part(s) resumed after an interruption or with jobs "
            "done before: their wall time covers what was left" if resumed else "") + ".")


def _paper_counts(card: pd.DataFrame, paper: str) -> dict:
    """A paper's published numbers under the main reading (within tolerance, compared, not compared), under the
    closest computed reading per number, and its claims' verdicts under the main reading."""
    part = card[card["paper"] == paper]
    numbers = part[part["kind"] == "number"]
    main = numbers[numbers["reading"] == MAIN]
    best = best_outcomes(numbers)  # the scorecard's own rule (a number too close to call keeps its main row)
    claims = part[(part["kind"] == "claim") & (part["reading"] == MAIN)]["outcome"]
    return {"within": f"{(main['outcome'] == 'within tolerance').sum()} of {len(main)}",
            "not_compared": int((~main["outcome"].isin(["within tolerance", "outside tolerance"])).sum()),
            "closest": f"{(best == 'within tolerance').sum()} of {len(best)}",
            "claims": " / ".join(str(int((claims == v).sum())) for v in CLAIM_VERDICTS)}


def papers_of(card: pd.DataFrame) -> dict:
    """The registered papers the run's scorecard has rows of, in the registry's order: a paper registered after
    the run (a user's own, the toy paper's copy) is not the reference's to report."""
    ran = set(card["paper"])
    return {name: spec for name, spec in scored().items() if name in ran}


def scorecard_table(card: pd.DataFrame, folder: Path | None = None) -> str:
    """Per paper of the run: published numbers within tolerance under the main reading and under the closest
    computed reading per number, and the claims' verdicts under the main reading."""
    rows = [[spec.title, *(_paper_counts(card, name)[k] for k in ("within", "not_compared", "closest", "claims"))]
            for name, spec in papers_of(card).items()]
    return markdown(["paper", "within tolerance, main reading", "not compared", "closest reading per number",
                     "claims: hold / partly / do not hold"], rows)


def status_table(card: pd.DataFrame, folder: Path) -> str:
    """The README's status: which run (date, commit, machine, wall time, job CPU) and per paper its numbers and
    claims."""
    record = json.loads((folder / "provenance.json").read_text())
    times = pd.read_csv(folder / "full_run.csv", keep_default_na=False) if (folder / "full_run.csv").exists() else None
    wall = times.loc[times["part"] == "total", "wall"].iat[0] if times is not None else "not measured"
    machine = record["machine"]
    cost = ""
    if times is not None and "job_cpu" in times:
        parts = times[times["part"] != "total"]
        resumed = int(parts["resumed"].astype(str).eq("True").sum())
        cost = (f"; {times.loc[times['part'] == 'total', 'job_cpu'].iat[0]} of job CPU"
                + (f", {resumed} of its {len(parts)} parts resumed" if resumed else ""))
    changes = " (with uncommitted changes)" if record.get("git_modified") is True else ""
    head = (f"The reference run (`reference/`, every row in `reference/scorecard.md`): {record['date']}, commit "
            f"`{record['git_commit'][:10]}`{changes}, {wall} on {machine['cores']} cores ({machine['cpu']}, OpenBLAS "
            f"{machine['blas_kernel']} kernel){cost}; how it compares with yours: `ufskit compare results/`.")
    rows = []
    for name, spec in papers_of(card).items():
        counts = _paper_counts(card, name)
        page = f"docs/fidelity/{name}-paper.md"
        rows.append([spec.title, f"{counts['within']} ({counts['not_compared']} not compared)", counts["claims"],
                     f"[{name}-paper.md]({page})" if (REPO / page).exists() else ""])
    return head + "\n\n" + markdown(["paper", "published numbers within tolerance",
                                      "claims: hold / partly / do not hold", "fidelity"], rows)


def status_not_shipped(folder: Path) -> str:
    """The README's status while the reference folder holds no full run (no scorecard): says so, where the last
    run's counts are, and each paper's fidelity page."""
    held = sorted(p.name for p in folder.iterdir() if p.is_dir() and (p / "provenance.json").exists()) \
        if folder.is_dir() else []
    holds = f" (it holds only {' and '.join(f'`{name}/`' for name in held)})" if held else ""
    rows = [[spec.title, f"[{name}-paper.md](docs/fidelity/{name}-paper.md)"]
            for name, spec in scored().items() if (REPO / f"docs/fidelity/{name}-paper.md").exists()]
    text = ("The reference run is not shipped yet: `reference/`, where the repository keeps its full run and from "
            f"which `benchmarks/run_docs.py` generates this block, has no scorecard{holds}. The counts of the last "
            "full offline run, made on older code, are in [docs/results.md](docs/results.md); what each paper's "
            "reproduction holds and where it departs:")
    return textwrap.fill(text, 115, break_long_words=False, break_on_hyphens=False) + "\n\n" + markdown(
        ["paper", "fidelity"], rows)


def status_block(folder: Path) -> str:
    """The README's status block from a reference folder: ``status_table`` of its scorecard, else
    ``status_not_shipped``."""
    card = folder / "scorecard.csv"
    if card.exists():
        return status_table(pd.read_csv(card, keep_default_na=False), folder)
    return status_not_shipped(folder)


def run_time(folder: Path) -> str:
    """A run's time: the total wall of its ``full_run.csv`` (benchmarks/full_run.py), else the sum of its jobs'
    times from ``job_times.csv`` (benchmarks/job_times.py: a run made of several invocations)."""
    if (folder / "full_run.csv").exists():
        return pd.read_csv(folder / "full_run.csv", keep_default_na=False).set_index("part").at["total", "wall"]
    if (folder / "job_times.csv").exists():
        total = pd.read_csv(folder / "job_times.csv").set_index("kind").loc["total"]
        hours, minutes = divmod(round(total["job_seconds"] / 60), 60)
        return f"{int(total['jobs']):,} jobs taking {hours} h {minutes} min of one core each"
    return "run time not recorded"


def draw_seconds(folders: list[Path], draws: int) -> float | None:
    """CPU seconds of one more Random draw on one dataset: the cross-paper benchmark's batched Random jobs (one per
    dataset, ``draws`` draws each) in the first of ``folders`` whose ``job_records.csv`` has them; None without."""
    for folder in folders:
        if not (folder / "job_records.csv").exists():
            continue
        jobs = pd.read_csv(folder / "job_records.csv")
        wildcards = jobs["wildcards"].astype(str)
        random = jobs[(jobs["rule"] == "run_batched_method") & wildcards.str.contains("method=Random")
                      & wildcards.str.contains("experiment=benchmark_")]
        if not random.empty:
            return float(random["cpu_seconds"].sum()) / (len(random) * draws)
    return None


def vs_random_table(table: pd.DataFrame, folder: Path, draw_folders: tuple[Path, ...] = ()) -> str:
    """A benchmark's methods against Random (its ``vs_random.csv``: the papers' ``reference/benchmark/``, every
    selector's ``reference/all_selectors/``): which run, then per method
    and metric on how many datasets it is better / not distinguishable / worse than Random (one test per verdict)
    and the Wilcoxon test across datasets (Holm over the methods), the positive controls apart, per metric
    how many of the non-trivial selectors (all but Random, Variance and the controls) are better on a majority and
    across datasets, and what the per-dataset test can detect. A table written by an earlier version (other
    columns) is judged again from its p-values (``benchmark_stats.rejudge``). More Random draws are priced from
    the benchmark's Random jobs in the per-job records of ``folder``, else of ``draw_folders`` (``draw_seconds``:
    a run that reused another run's Random jobs finds them there)."""
    from ufskit.papers import benchmark as B
    from ufskit.papers.benchmark_stats import (
        TESTED_METRICS,
        VERDICTS,
        VS_COLUMNS,
        across_datasets,
        control_coverage,
        detectable_limit,
        detectable_sd,
        draws_needed,
        majority_better,
        majority_by_chance,
        power_summary,
        rejudge,
        verdict_counts,
    )

    record = json.loads((folder / "provenance.json").read_text())
    machine = record["machine"]
    old = list(table.columns) != VS_COLUMNS
    table = rejudge(table)  # the run's p-values, this version's families (the same verdicts for a current table)
    across = across_datasets(table).set_index(["method", "metric"])
    counts = verdict_counts(table).set_index(["method", "metric"])
    majority = majority_better(table)
    metrics = [m for m in TESTED_METRICS if m in set(table["metric"])]
    supervised = B.controls(table)
    methods = [m for m in dict.fromkeys(table["method"]) if m not in supervised]
    counted = [m for m in methods if m != TRIVIAL]

    def cell(method, metric):
        if (method, metric) not in counts.index:
            return "–"
        c = counts.loc[(method, metric)]
        text = " / ".join(str(int(c[v])) for v in VERDICTS)
        if majority.get((method, metric), False):
            text = f"**{text}**"
        a = across.loc[(method, metric)]
        mark = {"better": "▲", "worse": "▼"}.get(a["verdict"], "")
        return f"{text} · {mark}{a['median_percentile']:.2f}"

    header = ["method"] + [B.METRIC_LABELS[m] for m in metrics]
    rows = [[m] + [cell(m, k) for k in metrics] for m in methods]
    n_datasets = table["dataset"].nunique()
    head = (f"Run of {record['date']}, commit `{record['git_commit'][:10]}`, {run_time(folder)} on {machine['cores']} cores "
            f"({machine['cpu']}, OpenBLAS {machine['blas_kernel']} kernel); {n_datasets} datasets"
            + ("; the verdicts recomputed from the run's p-values by the current rule "
               "(`benchmarks/rejudge_vs_random.py`, nothing rerun)" if old else "") + ". Each cell: datasets where "
            "the method is better / not distinguishable / worse than Random (prediction t-test, p < 0.05, one test per "
            "verdict; **bold**: better on a majority of the datasets it ran on), then · the test "
            "across datasets: ▲ better / ▼ worse than Random's mean (Wilcoxon signed-rank, Holm over the methods), "
            "and the median percentile of the method among Random's draws (0.5: an average random subset).")
    parts = [head, markdown(header, rows)]
    if supervised:
        rows = [[m + B.CONTROL_MARK] + [cell(m, k) for k in metrics] for m in supervised]
        cover = control_coverage(table).set_index("metric")
        anywhere = "; ".join(f"{B.METRIC_LABELS[k]} {int(cover.loc[k, 'better'])} of {int(cover.loc[k, 'datasets'])}"
                             for k in metrics if k in cover.index)
        parts += [f"{B.CONTROL_MARK} {B.CONTROL.capitalize()}: supervised selectors, tested the same way (their "
                  "Wilcoxon p not corrected), never ranked nor counted below.", markdown(header, rows),
                  f"Datasets where at least one {B.CONTROL} is called better (where the test can say yes for a "
                  f"selector that reads the labels): {anywhere}."]
    else:
        parts.append(f"This run has no {B.CONTROL} (ANOVA-F and mRMR, added since): how often the test calls a "
                     "selector that reads the labels better is not measured here (`benchmarks/control_power.py` on "
                     "eight sets: docs/fidelity/benchmark.md).")
    tally = "; ".join(f"{B.METRIC_LABELS[k]} {sum(bool(majority.get((m, k), False)) for m in counted)} of "
                      f"{len(counted)}" for k in metrics)
    cross = "; ".join(f"{B.METRIC_LABELS[k]} {sum(across.loc[(m, k), 'verdict'] == 'better' for m in counted)}"
                      f" (worse: {sum(across.loc[(m, k), 'verdict'] == 'worse' for m in counted)})" for k in metrics)
    parts += [f"Non-trivial selectors (all but {TRIVIAL}) better than Random on a majority of datasets: {tally} "
              f"(with no selector better than chance, a majority of {n_datasets} has probability "
              f"{majority_by_chance(n_datasets):.0e}).",
              f"Better than Random across the datasets (Wilcoxon, Holm over the {len(methods)} methods): {cross}."]
    power = power_summary(table)
    r = int(power["draws"].median())
    seconds = draw_seconds([folder, *draw_folders], r)
    steps = []
    for target in (2.1, 2.05):
        need = draws_needed(target, 1, 1)
        cost = f", {(need - r) * n_datasets * seconds / 3600:.1f} h of CPU more" if seconds and need else ""
        steps.append(f"{target:g} sd needs R = {need:,}{cost}")
    parts.append(f"What the per-dataset test can detect (every metric alike: R = {r} draws): "
                 f"a method is called better only beyond {detectable_sd(r):.2f} standard deviations of Random's "
                 f"draws from their mean; more draws lower "
                 f"that only towards {detectable_limit(1):.2f} (R = ∞): " + "; ".join(steps)
                 + (f" (one draw costs {seconds:.0f} s of CPU per dataset in the benchmark's Random jobs)" if seconds
                    else "") + ". The median smallest detectable difference over the datasets, in the metrics' "
                 "units: " + "; ".join(f"{B.METRIC_LABELS[row.metric]} {row.median_min_diff:.3g}"
                                       for row in power.drop_duplicates("metric").itertuples()) + ".")
    return "\n\n".join(parts)


def all_selectors_block(table: pd.DataFrame, folder: Path) -> str:
    """``vs_random_table`` of the reference's ``all_selectors/`` folder (its own provenance and times)."""
    return vs_random_table(table, folder / "all_selectors", (folder,))  # its Random jobs are the reference run's


def benchmark_block(table: pd.DataFrame, folder: Path) -> str:
    """``vs_random_table`` of the papers' benchmark in the reference run (``reference/benchmark/``)."""
    return vs_random_table(table, folder)


def tuned_table(table: pd.DataFrame, folder: Path) -> str:
    """The tuned variant (``reference/all_selectors_tuned/``): per method its G and, per label metric, on how many
    datasets its best setting is better / not distinguishable / worse than Random's best of G."""
    from ufskit.papers import benchmark as B
    from ufskit.papers import tuned

    folder = folder / "all_selectors_tuned"
    record = json.loads((folder / "provenance.json").read_text())
    rows = tuned.summary_rows(table)
    majority = tuned.majority_better(table).groupby(level="metric").sum()
    n = table["method"].nunique()
    head = (f"Run of {record['date']}, commit `{record['git_commit'][:10]}`, {run_time(folder)}; "
            f"{table['dataset'].nunique()} low-dimensional datasets. Each cell: datasets where the method's best "
            "setting of its grid of G is better / not distinguishable / worse than Random's best of G draws (beyond "
            f"{tuned.MARGIN:g} standard deviations of one try); **bold**: better on a majority.")
    tally = "; ".join(f"{B.METRIC_LABELS[m]} {int(majority[m])} of {n}" for m in B.LABEL_METRICS if m in majority)
    return (head + "\n\n" + markdown(list(rows.columns), rows.values.tolist())
            + f"\n\nTuned methods better than Random tuned the same way on a majority of datasets: {tally}.")


def replace_block(text: str, name: str, body: str) -> str:
    """``text`` with the block ``<!-- run:name -->`` ... ``<!-- /run:name -->`` holding ``body``."""
    pattern = re.compile(rf"(<!-- run:{name} -->\n).*?(<!-- /run:{name} -->)", re.S)
    if not pattern.search(text):
        raise ValueError(f"no block <!-- run:{name} --> ... <!-- /run:{name} --> in the page")
    return pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), text)


BLOCKS = [  # (page, block, file of the reference, table maker)
    ("docs/performance.md", "full-run", "full_run.csv", full_run_table),
    ("docs/results.md", "scorecard", "scorecard.csv", scorecard_table),
    ("README.md", "status", "scorecard.csv", status_table),
    ("docs/results.md", "benchmark", "benchmark/vs_random.csv", benchmark_block),
    ("docs/results.md", "all-selectors", "all_selectors/vs_random.csv", all_selectors_block),
    ("docs/results.md", "all-selectors-tuned", "all_selectors_tuned/tuned.csv", tuned_table),
]


# blocks rewritten even when the reference lacks their file: (page, block) -> maker of the text saying so
MISSING = {("README.md", "status"): status_not_shipped}


def rewritten(folder: Path) -> dict[str, str]:
    """Page -> its text with every block whose file ``folder`` has rewritten from that file (and the blocks of
    ``MISSING`` saying the file is not there)."""
    pages = {}
    for page, block, source, make in BLOCKS:
        path = folder / source
        if not path.exists() and (page, block) in MISSING:
            pages[page] = replace_block(pages.get(page) or (REPO / page).read_text(), block,
                                        MISSING[(page, block)](folder))
            continue
        if not path.exists():
            print(f"{page}: {block} left as it is ({path} not found)")
            continue
        table = pd.read_csv(path, keep_default_na=False)  # an empty cell is "", not NaN
        pages[page] = replace_block(pages.get(page) or (REPO / page).read_text(), block, make(table, folder))
    return pages


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=REPO / "reference", help="the reference folder")
    args = parser.parse_args(argv)
    for page, text in rewritten(args.results).items():
        (REPO / page).write_text(text)
        print(f"{page}: rewritten from {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
