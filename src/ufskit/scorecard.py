"""The scorecard: every published number and every claim of the registered papers beside this run's result.

Rows come from what was published (the tables of each paper's ``published/`` folder and
its claims list ``claims.csv``), never from what happened to run, so nothing drops
out silently: a paper without a report folder in this run gives rows
"not run", a dataset that could not be obtained (config ``data.exclude``) rows
"not obtained: <reason>", a dataset or table the run's experiments leave out
rows "not in this run".

Readings (``ufskit.readings``): a report folder belongs to the main reading
or to a named alternative reading (``results/readings/<name>/<report>/``), and a
reading may instead be computed beside the main one (metrics of the main
tables, ``beside``). Each published number gets one row per reading, the
column ``closest_reading`` names the reading nearest to the published value
("too close to call" when another is nearer than the noise of one try further),
and an out-of-tolerance row carries its group (its paper folder's ``groups.csv``:
a reading, a data version, a paper inconsistency; "unexplained" otherwise).

Reproduced numbers are read from each paper's machine-readable outputs
(``results/<report>/table1.csv`` ...), dataset statistics (n, d, classes) from
the prepared-data summaries, claim verdicts from ``results/<report>/claims.csv``
(written by each paper's claims rule with ``ufskit.papers.claims_frame``). The papers, their
published blocks, readers and claims lists come from the paper registry (``ufskit.papers.registry``). Pure pandas; the
workflow's ``scripts/scorecard.py`` only reads files and writes the outputs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .chance import COLUMNS, TOO_CLOSE, chance_verdict, verdict_count
from .papers import NOT_RUN, REFERENCE, paper_rows, read_published, registry, scored
from .papers.spec import Published
from .readings import MAIN
from .tables import markdown_table

STATS = {"n_samples", "n_features", "n_classes"}  # compared with the prepared data's summary
SUMMARY_METHOD = ""  # dataset statistics belong to no method

KEYS = ["paper", "table", "dataset", "method", "metric"]  # every published number's key; a paper may add more


def extra_keys() -> list[str]:
    """The key columns beyond ``KEYS`` that the registered papers' published blocks declare (``Published.keys``,
    e.g. a feature count), in the registry's order; a scorecard row has each ("" where its block has none)."""
    return list(dict.fromkeys(k for _, block in published_blocks() for k in block.keys))


def key_text(value) -> str:
    """An extra key's value as the scorecard joins on it: text, an integral number without ".0", "" when missing."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return ""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool) and float(value).is_integer():
        return str(int(value))
    return str(value)


def _with_keys(frame: pd.DataFrame, keys) -> pd.DataFrame:
    """``frame`` with every extra key column of ``keys`` as ``key_text`` ("" where the frame has none)."""
    return frame.assign(**{k: frame[k].map(key_text) if k in frame else "" for k in keys})

# ---------------------------------------------------------------- claims: the papers' verdict files

def combine_verdicts(verdicts) -> str:
    """One verdict from the verdicts of a claim's parts: all hold -> holds, none -> does not hold, else partly.

    Parts not run are left out while any part was judged.
    """
    judged = [v for v in verdicts if v != NOT_RUN]
    if not judged:
        return NOT_RUN
    if all(v == "holds" for v in judged):
        return "holds"
    if all(v == "does not hold" for v in judged):
        return "does not hold"
    return "partly holds"


# ---------------------------------------------------------------- what one report folder produced


@dataclass
class ReportResults:
    """The outputs of one report folder of a paper in this run (only what was built)."""

    report: str
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)  # output kind (its reader's) -> the paper's CSV
    claims: pd.DataFrame | None = None  # the paper's claims.csv; None when the run does not build it
    summaries: dict[str, dict] = field(default_factory=dict)  # dataset -> prepared-data summary
    reading: str = MAIN  # the reading this folder computes (ufskit.readings)
    base: str = ""  # the main report folder it is an alternative of ("" = this one)

    @property
    def base_report(self) -> str:
        return self.base or self.report


def load_report(report: str, files: dict[str, str], summaries=(), reading: str = MAIN, base: str = "") -> ReportResults:
    """Read a report folder's tables (key: the output kind its paper's ``readers`` name, e.g. table1), its claims.csv
    (key claims) and data summaries.

    ``reading`` and ``base``: the reading the folder computes and the main folder it is an alternative of.
    """
    tables = {k: paper_rows(pd.read_csv(p)) for k, p in files.items() if k != "claims"}  # no added method
    claims = pd.read_csv(files["claims"], keep_default_na=False) if "claims" in files else None
    loaded = [json.loads(Path(p).read_text()) for p in summaries]
    return ReportResults(report, tables, claims, {s["dataset"]: s for s in loaded}, reading, base)


# ---------------------------------------------------------------- published numbers


def published_blocks() -> list[tuple[str, Published]]:
    """(paper, block) of every published-number block of the registered papers, in the registry's order."""
    return [(name, block) for name, spec in scored().items() for block in spec.published]


def published_tables() -> dict[str, pd.DataFrame]:
    """File name -> frame of every block of ``published_blocks``, read from its paper's folder."""
    return {block.file: read_published(registry()[paper].path(block.file)) for paper, block in published_blocks()}


def published_numbers(published: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The published tables in long form: one row per published number (paper, table, dataset, method, metric and
    the ``extra_keys``, "" where a block has none).

    ``published``: file name -> its frame, for every file of ``published_blocks``.
    """
    extra = extra_keys()
    blocks = []
    for paper, spec in published_blocks():
        if spec.file not in published:
            raise ValueError(f"published table {spec.file!r} missing; given: {sorted(published)}.")
        frame = published[spec.file].reset_index(drop=True)
        parts = [pd.DataFrame({
            "paper": paper, "table": spec.table,
            "dataset": frame["dataset"] if "dataset" in frame else spec.dataset,
            "method": frame["method"] if method is None else method,
            "metric": metric, **{k: frame[k] for k in spec.keys}, "published": frame[column].astype(float),
            "row": frame.index, "col": j,
        }) for j, (column, (metric, method)) in enumerate(spec.columns.items())]
        block = pd.concat(parts).sort_values(["row", "col"], kind="stable")  # the paper's row order
        block = _with_keys(block.drop(columns=["row", "col"]), extra)
        blocks.append(block.drop_duplicates([*KEYS, *extra]))  # statistics repeat per method
    return pd.concat(blocks, ignore_index=True)[[*KEYS, *extra, "published"]]


def _removed(summary: dict) -> int:
    """Columns the preparation dropped (constant ones, words no document uses)."""
    return sum(step.get("n_removed", 0) for step in summary.get("preprocessing", []))


def _stats(summaries: dict[str, dict], tables) -> pd.DataFrame:
    """n, d and classes of each dataset, once per published table of dataset statistics.

    d is counted as loaded, before the preparation drops columns (the papers
    count every column, constant ones too); the evidence column says how many
    were dropped.
    """
    value = {"n_samples": lambda s: s["n_samples"], "n_classes": lambda s: s["n_classes"],
             "n_features": lambda s: s["n_features"] + _removed(s)}
    rows = [{"table": table, "dataset": name, "method": SUMMARY_METHOD, "metric": metric,
             "reproduced": float(value[metric](s)), "status": "ok", "evidence": _summary_evidence(s)}
            for table in tables for name, s in summaries.items() for metric in sorted(STATS)]
    return pd.DataFrame(rows, columns=["table", "dataset", "method", "metric", "reproduced", "status", "evidence"])


def _summary_evidence(summary: dict) -> str:
    path = f"resources/prepared/{summary['chain']}/{summary['dataset']}.json"
    dropped = _removed(summary)
    return f"{path} (prepared: {summary['n_features']} features, {dropped} dropped)" if dropped else path


def reproduced_numbers(paper: str, results: ReportResults) -> pd.DataFrame:
    """One report folder's numbers in the published tables' terms (table, dataset, method, metric, ``extra_keys``)."""
    spec = registry()[paper]
    keys = [*KEYS, *extra_keys()]
    readers = spec.readers
    unknown = set(results.tables) - set(readers)
    if unknown:
        raise ValueError(f"paper {paper!r} has no published table read from {sorted(unknown)}.")
    stat_tables = [s.table for s in spec.published if {m for m, _ in s.columns.values()} <= STATS]
    parts = [_with_chance(readers[k](t), t).assign(evidence=f"results/{results.report}/{k}.csv")
             for k, t in results.tables.items()]
    parts = [p for p in [*parts, _stats(results.summaries, stat_tables)] if not p.empty]
    if not parts:  # the folder's experiments built none of the paper's tables (only some of them ran)
        return pd.DataFrame(columns=[*keys, "reproduced", "status", "evidence"])
    out = _with_keys(pd.concat(parts, ignore_index=True).assign(paper=paper), keys[len(KEYS):])
    out = out[out["method"] != REFERENCE]  # the chance reference is drawn in figures, never scored
    twice = out[out.duplicated(keys, keep=False)]
    if not twice.empty:
        raise ValueError(f"results/{results.report}: several values for {twice[keys].drop_duplicates().values.tolist()}.")
    return out


CHANCE = ["G", *COLUMNS]  # Random under the same selection (ufskit.chance), if a table has it


def _with_chance(rows: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """A reader's rows with the table's chance columns (best of G), matched on dataset, method, metric and the
    extra keys both have."""
    if not set(CHANCE) <= set(table.columns):
        return rows
    keys = ["dataset", "method", "metric", *(k for k in extra_keys() if k in rows and k in table)]
    return rows.merge(table[keys + CHANCE].drop_duplicates(keys), on=keys, how="left")


def chance_verdicts(rows: pd.DataFrame, column: str) -> list[str]:
    """Per row, whether ``column`` (reproduced or published) beats Random's best of G: "yes", "no" or "too close
    to call" (within one try's spread, ``chance.chance_verdict``); "" without a chance value."""
    return [chance_verdict(v, c, sd, m) if ok else "" for v, c, sd, m, ok in
            zip(rows[column], rows["chance_best_of_g"], rows["chance_std"], rows["metric"], rows["status"] == "ok")]


# ---------------------------------------------------------------- tolerances


def check_tolerances(tolerances: dict, metrics) -> None:
    """Every metric needs a tolerance: {absolute, relative} (either or both) or {factor}."""
    missing = sorted(set(metrics) - set(tolerances))
    if missing:
        raise ValueError(f"no scorecard tolerance for metric(s) {missing}.")
    for metric, tol in tolerances.items():
        keys = set(tol)
        if not keys or not (keys <= {"absolute", "relative"} or keys == {"factor"}):
            raise ValueError(f"tolerance of {metric!r} must be absolute and/or relative, or factor; got {tol}.")
        if any(v < 0 for v in tol.values()) or tol.get("factor", 1) < 1:
            raise ValueError(f"tolerance of {metric!r} out of range: {tol}.")


def tolerance_text(tol: dict) -> str:
    if "factor" in tol:
        return f"x/÷ {tol['factor']:g}"
    a, r = tol.get("absolute"), tol.get("relative")
    if r is None:
        return "exact" if a == 0 else f"± {a:g}"
    return f"± {100 * r:g} %" if a is None else f"± max({a:g}, {100 * r:g} %)"


def within_tolerance(published: float, reproduced: float, tol: dict) -> bool:
    """|reproduced - published| <= max(absolute, relative * |published|); factor: within [published/f, published*f]."""
    if "factor" in tol:
        return published > 0 and published / tol["factor"] <= reproduced <= published * tol["factor"]
    allowed = max(tol.get("absolute", 0.0), tol.get("relative", 0.0) * abs(published))
    return abs(reproduced - published) <= allowed + 1e-9 * max(1.0, abs(published))


# ---------------------------------------------------------------- the scorecard


def _compare(group: pd.DataFrame, reproduced: pd.DataFrame, excluded: dict) -> pd.DataFrame:
    merged = group.merge(reproduced, on=[*KEYS, *extra_keys()], how="left")
    absent = merged["status"].isna()
    merged.loc[absent, "status"] = merged.loc[absent, "dataset"].map(
        lambda d: f"not obtained: {excluded[d]}" if d in excluded else "not in this run")
    merged["evidence"] = merged["evidence"].where(merged["status"] == "ok", "")
    return merged


def beside_numbers(reproduced: pd.DataFrame, mapping: dict) -> pd.DataFrame:
    """A reading computed beside the main one: its metrics (values of ``mapping``) renamed to the published ones."""
    part = reproduced[reproduced["metric"].isin(list(mapping.values()))].copy()
    part["metric"] = part["metric"].map({v: k for k, v in mapping.items()})
    return part


def closest_readings(rows: pd.DataFrame, order=()) -> pd.Series:
    """Per published number (paper, base report, table, dataset, method, metric): the reading nearest to it.

    Nearest = smallest |reproduced - published| among the readings with a value;
    ties go to the main reading, then to ``order`` (the config's order of
    readings). "" when no reading has a value; "too close to call" when the
    runner-up is nearer than one standard deviation of Random's best of G
    further (``chance_std`` of the nearest reading's row, where it has one):
    readings that close are apart by less than the noise of one try, so
    another machine may name the other one.
    """
    rank = {MAIN: 0, **{r: i + 1 for i, r in enumerate(order)}}
    scored = rows.assign(_gap=(rows["reproduced"] - rows["published"]).abs(),
                         _rank=rows["reading"].map(lambda r: rank.get(r, len(rank))))
    scored.loc[rows["status"] != "ok", "_gap"] = np.nan
    keys = ["paper", "base", *KEYS[1:], *(k for k in extra_keys() if k in rows)]
    ranked = scored.dropna(subset=["_gap"]).sort_values(["_gap", "_rank"], kind="stable")
    first = ranked.drop_duplicates(keys).set_index(keys)
    runner_up = ranked[ranked.duplicated(keys)].drop_duplicates(keys).set_index(keys)["_gap"]
    margin = runner_up.reindex(first.index) - first["_gap"]
    close = margin.le(first["chance_std"]) & first["chance_std"].notna()
    best = first["reading"].where(~close, TOO_CLOSE)
    return pd.Series([best.get(tuple(k), "") for k in rows[keys].itertuples(index=False)], index=rows.index)


GROUP_COLUMNS = ["paper", "table", "dataset", "method", "metric", "group", "reason", "doc"]
UNEXPLAINED = "unexplained"


def group_files() -> list[Path]:
    """The groups files of the scored papers that have one (``groups.csv`` of each paper's folder), in the
    registry's order."""
    return [spec.groups for spec in scored().values() if spec.groups.is_file()]


def read_groups(paths) -> pd.DataFrame:
    """The groups files ``paths`` (one or several; each paper folder's ``groups.csv``), in order: published-number
    patterns (``*`` = any) -> group, measured reason, doc section. A file in a paper's folder lists that paper only."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    return pd.concat([_read_group_file(p) for p in paths] or [pd.DataFrame(columns=GROUP_COLUMNS)],
                     ignore_index=True)


def _read_group_file(path) -> pd.DataFrame:
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = sorted(set(GROUP_COLUMNS) - set(frame.columns))
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}.")
    empty = frame[(frame[["paper", "group", "reason", "doc"]] == "").any(axis=1)]
    if not empty.empty:
        raise ValueError(f"{path}: rows {list(empty.index + 2)} need a paper, group, reason and doc.")
    unknown = sorted(set(frame["paper"]) - set(scored()))
    if unknown:
        raise ValueError(f"{path}: unknown paper(s) {unknown}; known: {sorted(scored())}.")
    owner = next((name for name, spec in registry().items() if spec.home == Path(path).resolve().parent), None)
    foreign = sorted(set(frame["paper"]) - {owner}) if owner is not None else []
    if foreign:
        raise ValueError(f"{path}: rows of paper(s) {foreign} in the folder of paper {owner!r}; each paper's "
                         "groups.csv lists its own numbers.")
    return frame[GROUP_COLUMNS]


def group_of(row, groups: pd.DataFrame | None) -> str:
    """The first group whose pattern matches the row (``*`` or empty = any), else "unexplained"."""
    if groups is not None:
        for g in groups.itertuples(index=False):
            if all(getattr(g, k) in ("*", "", getattr(row, k)) for k in ("paper", "table", "dataset", "method", "metric")):
                return g.group
    return UNEXPLAINED


def _not_run(group: pd.DataFrame, report: str = "", reading: str = MAIN, base: str = "") -> pd.DataFrame:
    """The published numbers ``group`` as "not run": no folder of their paper ran, or ``report`` built no table."""
    return group.assign(report=report, reading=reading, base=base, reproduced=np.nan, status="not run", evidence="")


def number_rows(published: dict[str, pd.DataFrame], runs: dict[str, list[ReportResults]], *,
                excluded: dict, tolerances: dict, beside: dict | None = None,
                groups: pd.DataFrame | None = None, reading_order=()) -> pd.DataFrame:
    """One row per published number, report folder of its paper in this run and reading, with the comparison.

    ``beside``: paper -> reading -> {published metric: main-table metric} for
    readings computed in the main run. ``groups``: ``read_groups``; an
    out-of-tolerance row gets its group ("unexplained" without one).
    """
    pub = published_numbers(published)
    check_tolerances(tolerances, pub["metric"].unique())
    parts = []
    for paper in scored():
        group = pub[pub["paper"] == paper]
        reports = runs.get(paper, [])
        if not reports:
            parts.append(_not_run(group))
        for res in reports:
            reproduced = reproduced_numbers(paper, res)
            if reproduced.empty:
                parts.append(_not_run(group, res.report, res.reading, res.base_report))
                continue
            parts.append(_compare(group, reproduced, excluded).assign(
                report=res.report, reading=res.reading, base=res.base_report))
            if res.reading != MAIN:
                continue
            for reading, mapping in (beside or {}).get(paper, {}).items():
                mine = group[group["metric"].isin(list(mapping))]
                parts.append(_compare(mine, beside_numbers(reproduced, mapping), excluded).assign(
                    report=res.report, reading=reading, base=res.report))
    rows = pd.concat(parts, ignore_index=True)
    rows = rows.assign(**{c: rows[c] if c in rows else np.nan for c in CHANCE})
    rows["reproduced_beats_chance"] = chance_verdicts(rows, "reproduced")
    rows["published_beats_chance"] = chance_verdicts(rows, "published")
    ok = rows["status"] == "ok"
    rows["difference"] = np.where(ok, rows["reproduced"] - rows["published"], np.nan)
    rows["tolerance"] = rows["metric"].map(lambda m: tolerance_text(tolerances[m]))
    within = [within_tolerance(p, r, tolerances[m]) if o else None
              for p, r, m, o in zip(rows["published"], rows["reproduced"], rows["metric"], ok)]
    rows["within_tolerance"] = ["" if w is None else ("yes" if w else "no") for w in within]
    rows["outcome"] = np.where(ok, np.where(rows["within_tolerance"] == "yes", "within tolerance",
                                            "outside tolerance"), rows["status"])
    rows["closest_reading"] = closest_readings(rows, reading_order)
    rows["group"] = [group_of(r, groups) if r.outcome == "outside tolerance" else ""
                     for r in rows.itertuples(index=False)]
    return rows[["paper", "report", "reading", "base", "table", "dataset", "method", "metric", *extra_keys(), "published",
                 "reproduced", "difference", "tolerance", "within_tolerance", "outcome", "closest_reading", "group",
                 "evidence", *CHANCE, "reproduced_beats_chance", "published_beats_chance"]]


def claim_rows(reference: pd.DataFrame, runs: dict[str, list[ReportResults]], *, excluded: dict,
               published: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per claim of ``reference`` (config/published/claims.csv) and report folder of its paper.

    ``published`` (``published_numbers``) names the datasets of each paper: those
    that could not be obtained are noted beside the paper's verdicts.
    """
    known = set(reference["id"])
    for reports in runs.values():
        for res in reports:
            stray = sorted(set(res.claims["id"]) - known) if res.claims is not None else []
            if stray:
                raise ValueError(f"results/{res.report}/claims.csv has ids {stray} not in the claims list.")
    missing_data = {}
    if published is not None:
        for paper, group in published.groupby("paper"):
            gone = sorted(set(group["dataset"]) & set(excluded))
            missing_data[paper] = "; ".join(f"{d} ({excluded[d]})" for d in gone)
    rows = []
    for claim in reference.itertuples(index=False):
        base = {"paper": claim.paper, "claim_id": claim.id, "table": claim.element, "claim": claim.claim,
                "reading": MAIN}
        reports = runs.get(claim.paper, [])
        if not reports:
            rows.append({**base, "report": "", "outcome": "not run", "numbers": "", "evidence": ""})
        for res in reports:
            verdict, numbers, evidence = _claim_verdict(res, claim.id)
            if missing_data.get(claim.paper) and verdict != NOT_RUN:
                numbers += f" [Datasets not obtained, left out: {missing_data[claim.paper]}.]"
            rows.append({**base, "report": res.report, "reading": res.reading, "outcome": verdict, "numbers": numbers,
                         "evidence": evidence})
    return pd.DataFrame(rows, columns=["paper", "report", "reading", "claim_id", "table", "claim", "outcome",
                                       "numbers", "evidence"])


def _claim_verdict(res: ReportResults, claim_id: str) -> tuple[str, str, str]:
    if res.claims is None:
        return (NOT_RUN, f"results/{res.report}/claims.csv is not built: the experiments of this report "
                "folder do not cover every study the claims need", "")
    parts = res.claims[res.claims["id"] == claim_id]
    if parts.empty:
        return NOT_RUN, "no verdict computed by this run (the numbers it needs are missing)", ""
    verdict = combine_verdicts(parts["verdict"])
    if len(parts) == 1:
        numbers = parts["numbers"].iloc[0]
    else:
        numbers = " ".join(f"[{p.claim.rstrip('.')}: {p.verdict}] {p.numbers}" for p in parts.itertuples())
    return verdict, numbers, f"results/{res.report}/claims.md"


PROTOCOLS = ("full", "quick", "smoke")  # config `protocol`: the papers' protocols, or a reduction of them
# the outcomes that compare a result with the paper; a reduced protocol's are prefixed with its name
JUDGED = ("within tolerance", "outside tolerance", "holds", "partly holds", "does not hold")


def mark_protocol(card: pd.DataFrame, protocol: str) -> pd.DataFrame:
    """Prefix the judged outcomes of a reduced run ("quick: within tolerance"), so none counts as reproduced.

    A quick or smoke run uses fewer datasets, settings and repetitions than the
    papers: its comparisons show the workflow ran, not that a number was reproduced.
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}.")
    out = card.assign(protocol=protocol)
    if protocol != "full":
        judged = out["outcome"].isin(JUDGED)
        out.loc[judged, "outcome"] = protocol + ": " + out.loc[judged, "outcome"]
    return out


def scorecard(published: dict[str, pd.DataFrame], reference: pd.DataFrame, runs: dict[str, list[ReportResults]],
              *, excluded: dict, tolerances: dict, protocol: str = "full", beside: dict | None = None,
              groups: pd.DataFrame | None = None, reading_order=()) -> pd.DataFrame:
    """The scorecard: published numbers (kind "number") then claims (kind "claim"), one frame.

    ``protocol`` (config ``protocol``) is written on every row; for ``quick`` and
    ``smoke`` the judged outcomes are marked with it (``mark_protocol``).
    ``beside``, ``groups``, ``reading_order``: see ``number_rows``.
    """
    numbers = number_rows(published, runs, excluded=excluded, tolerances=tolerances, beside=beside,
                          groups=groups, reading_order=reading_order)
    claims = claim_rows(reference, runs, excluded=excluded, published=published_numbers(published))
    out = pd.concat([numbers.assign(kind="number"), claims.assign(kind="claim")], ignore_index=True)
    columns = ["kind", "protocol", "paper", "report", "reading", "base", "table", "dataset", "method", "metric",
               *extra_keys(), "published", "reproduced", "difference", "tolerance", "within_tolerance", "outcome", "closest_reading",
               "group", "claim_id", "claim", "numbers", "evidence", *CHANCE, "reproduced_beats_chance",
               "published_beats_chance"]
    return mark_protocol(out, protocol)[columns]


# ---------------------------------------------------------------- markdown


def _num(value) -> str:
    return "" if value is None or pd.isna(value) else f"{value:.4g}"


def _diff(value) -> str:
    return "" if value is None or pd.isna(value) else f"{value:+.3g}"


def _cell(text) -> str:
    return "" if text is None or pd.isna(text) else str(text)


def _protocol_of(card: pd.DataFrame) -> str:
    return str(card["protocol"].iloc[0]) if "protocol" in card and len(card) else "full"


def _counts(out: pd.Series) -> tuple[int, int, int]:
    within, outside = int((out == "within tolerance").sum()), int((out == "outside tolerance").sum())
    return within, outside, len(out) - within - outside


def best_outcomes(nums: pd.DataFrame) -> pd.Series:
    """Each published number's outcome under its closest reading (its main row when none is closer, or when the
    closest is too close to call)."""
    best = nums[(nums["reading"] == nums["closest_reading"]) | nums["closest_reading"].isin(["", TOO_CLOSE])
                & (nums["reading"] == MAIN)]
    return best.drop_duplicates(["paper", "base", *KEYS[1:], *(k for k in extra_keys() if k in nums)])["outcome"]


def _overview(card: pd.DataFrame) -> list[str]:
    protocol = _protocol_of(card)
    mark = "" if protocol == "full" else f"{protocol}: "  # a reduced run's counts say so in the header
    header = ["paper", "results", "reading", "published numbers", f"{mark}within tolerance", f"{mark}outside",
              "not compared", f"claims, {mark}holds", f"{mark}partly", f"{mark}does not hold", "not run"]
    rows = []
    for paper, spec in scored().items():
        name = spec.title
        part = card[card["paper"] == paper]
        # the main reading's folders first, then the alternatives
        part = part.assign(_alt=part["reading"] != MAIN).sort_values(["_alt", "report", "reading"], kind="stable")
        for (_, report, reading), group in part.groupby(["_alt", "report", "reading"], sort=False):
            nums, claims = group[group["kind"] == "number"], group[group["kind"] == "claim"]
            within, outside, other = _counts(nums["outcome"].str.removeprefix(mark))
            cv = claims["outcome"].str.removeprefix(mark)
            rows.append([name, f"results/{report}/" if report else "not run", reading, len(nums), within, outside,
                         other, int((cv == "holds").sum()), int((cv == "partly holds").sum()),
                         int((cv == "does not hold").sum()), int((cv == NOT_RUN).sum())])
        nums = part[part["kind"] == "number"]
        if (nums["reading"] != MAIN).any():
            for base, group in nums.groupby("base", sort=True):
                best = best_outcomes(group).str.removeprefix(mark)
                within, outside, other = _counts(best)
                rows.append([name, f"results/{base}/ and its readings", "closest per number", len(best), within,
                             outside, other, "", "", "", ""])
    return markdown_table(rows, header).splitlines()


def _groups_section(card: pd.DataFrame, groups: pd.DataFrame | None) -> list[str]:
    """Counts of the main reading's out-of-tolerance numbers per group, with the reason and the doc."""
    nums = card[(card["kind"] == "number") & (card["reading"] == MAIN) & (card["group"].fillna("") != "")]
    lines = ["## Outside tolerance, by group", "",
             "Every published number outside tolerance under the main reading belongs to a group with a measured "
             "reason (its paper folder's groups.csv); one without is \"unexplained\".", ""]
    if nums.empty:
        return lines + ["No number is outside tolerance.", ""]
    info = {} if groups is None else {g.group: g for g in groups.drop_duplicates("group").itertuples(index=False)}
    rows = [[registry()[paper].title, group, len(part), _cell(info[group].reason) if group in info else "",
             _cell(info[group].doc) if group in info else ""]
            for (paper, group), part in nums.groupby(["paper", "group"], sort=True)]
    return lines + markdown_table(rows, ["paper", "group", "numbers", "reason", "doc"]).splitlines() + [""]


def _numbers_table(group: pd.DataFrame) -> list[str]:
    """One published table of one base report: a value column per reading, the closest named; the table's extra
    keys (a feature count ...) after the metric."""
    readings = [r for r in dict.fromkeys(group["reading"]) if r != MAIN]
    extra = [k for k in extra_keys() if k in group and (group[k].fillna("") != "").any()]
    index = [*KEYS[1:], *extra]
    main = group[group["reading"] == MAIN].set_index(index)
    others = {r: group[group["reading"] == r].set_index(index)["reproduced"] for r in readings}
    header = ["dataset", "method", "metric", *extra, "published", "reproduced", "difference", "tolerance", "outcome",
              "group"]
    if readings:
        header += [*readings, "closest"]
    rows = []
    for key, r in main.iterrows():
        cells = [key[1], key[2] or "–", key[3], *key[4:], _num(r.published), _num(r.reproduced), _diff(r.difference),
                 r.tolerance, r.outcome, _cell(r.group)]
        if readings:
            cells += [_num(others[x].get(key)) for x in readings] + [r.closest_reading]
        rows.append(cells)
    return markdown_table(rows, header).splitlines()


def _chance_section(card: pd.DataFrame) -> list[str]:
    """Per paper, table and method: how many reproduced and published numbers beat Random's best of G."""
    rows = card[(card["kind"] == "number") & card["G"].notna() & (card["reading"] == MAIN)]
    if rows.empty:
        return []
    lines = ["## Chance under the same selection", "",
             "Numbers that are a best over G settings and counts, against Random given the same selection (best of "
             "G random-order settings; docs/fidelity/readings.md): how many beat it, and how many are too close to "
             "call (within one standard deviation of Random's best of G).", ""]
    table = []
    for (paper, report, table_name, method), g in rows.groupby(["paper", "report", "table", "method"], sort=False):
        table.append([f"{registry()[paper].title}, {table_name} (results/{report}/)", method,
                      "/".join(str(int(x)) for x in sorted(g["G"].unique())), verdict_count(g["reproduced_beats_chance"]),
                      verdict_count(g["published_beats_chance"])])
    return lines + markdown_table(table, ["table", "method", "G", "reproduced beats chance",
                                          "published beats chance"]).splitlines() + [""]


def scorecard_markdown(card: pd.DataFrame, *, excluded: dict, tolerances: dict,
                       groups: pd.DataFrame | None = None) -> str:
    """The scorecard as markdown: overview, groups, datasets not obtained, claims, then every published number."""
    protocol = _protocol_of(card)
    title = "" if protocol == "full" else f" ({protocol} protocol)"
    lines = [f"# Scorecard{title}: the registered papers' published numbers and claims against this run", "",
             "One row per published number (each paper's published/*.csv) and per claim (its published/claims.csv), "
             "for each results folder of the paper built by this run. Difference = reproduced - published, "
             "in the paper's units; tolerances: config `scorecard.tolerances`. Readings: the main reading's value, "
             "then one column per computed alternative reading (config `readings`, docs/fidelity/readings.md) and "
             "the reading closest to the published value. Machine-readable (one row per reading): "
             "results/scorecard.csv.", ""]
    if protocol != "full":
        lines += [f"**{protocol.capitalize()} protocol** (config/{protocol}.yaml): fewer datasets, settings, counts "
                  "and repetitions than the papers. Its comparisons show that the workflow runs end to end; they "
                  f"are not a reproduction, and no row counts as reproduced (outcomes read \"{protocol}: ...\"). "
                  "The full protocol is the default target of config/config.yaml.", ""]
    lines += ["## Overview", "", *_overview(card), ""]
    lines += _groups_section(card, groups)
    lines += _chance_section(card)
    lines += ["## Datasets not obtained", ""]
    lines += [f"- {d}: {why}" for d, why in sorted(excluded.items())] or ["None: every dataset was obtained."]
    claims = card[card["kind"] == "claim"]
    rows = [[r.claim_id, r.report or "–", f"{r.table}: {_cell(r.claim)}", f"**{r.outcome}**", _cell(r.numbers),
             _cell(r.evidence)] for r in claims.itertuples(index=False)]
    lines += ["", "## Claims", "", *markdown_table(rows, ["id", "results", "claim", "verdict", "numbers",
                                                          "evidence"]).splitlines()]
    numbers = card[card["kind"] == "number"]
    lines += ["", "## Published numbers", "", "Tolerance per metric: "
              + ", ".join(f"{m} {tolerance_text(t)}" for m, t in tolerances.items()) + "."]
    for (paper, table, base), group in numbers.groupby(["paper", "table", "base"], sort=False):
        lines += ["", f"### {registry()[paper].title}, {table}" + (f" (results/{base}/)" if base else " (not run)"), "",
                  *_numbers_table(group)]
    return "\n".join(lines) + "\n"


def claim_lists() -> list[Path]:
    """The claims lists of the scored papers (``PaperSpec.claims`` in each paper's folder), in the registry's order."""
    return [spec.path(spec.claims) for spec in scored().values() if spec.claims is not None]


def read_reference(paths) -> pd.DataFrame:
    """The claims lists (id, paper, element, claim) of one path or several, in order; ids must be unique."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    frame = pd.concat([read_published(p) for p in paths], ignore_index=True)
    dup = frame["id"][frame["id"].duplicated()].tolist()
    if dup:
        raise ValueError(f"duplicate claim ids {dup} in {[str(p) for p in paths]}.")
    unknown = sorted(set(frame["paper"]) - set(scored()))
    if unknown:
        raise ValueError(f"claims of unknown paper(s) {unknown}; known: {sorted(scored())}.")
    return frame
