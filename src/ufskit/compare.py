"""Does a run agree with another (by default the shipped reference)? Every number, within the scorecard's tolerances.

A results folder is read as *cells*: one per (file, row, column) of every CSV table a reader looks at (the
scorecard, each paper's tables and claims, each experiment's summary; not the per-run metric and selection
files). Measured times are left out: they are measured, not computed. A row is named by its text and integer
columns (dataset, method, metric, count, ...), with any number written inside a text (a claim's "70.1 vs
67.3", "on 4/6 datasets") masked, so that a number moving does not rename its row, and rows whose names are
then equal numbered in file order; the numbers themselves are compared in the columns they come from.

Two sets of cells are compared cell by cell. The scorecard decides; the other tables inform:

- a cell of the **scorecard** (``scorecard.csv``: every number in the published unit of its metric) is
  **identical** when its text (17 significant digits) is the same, **within tolerance** when
  ``|mine - reference| <= max(absolute, relative x |reference|)`` for the tolerance of its metric (the
  scorecard's ``scorecard.tolerances``: the row's ``metric`` or the column's name), **beyond tolerance**
  otherwise (NaN on one side only is beyond);
- the scorecard's ``difference`` (reproduced - published) moves with its ``reproduced`` cell, which decides: it
  is compared as the cells of other tables are;
- a cell of **any other table** (a paper's tables, the benchmark's summaries and statistics: values in units
  of their own, fractions beside percentages, ranks, p-values) is identical, **within round-off** (``NUMERIC``:
  another BLAS kernel sums in another order) or **moved** beyond round-off. A move is listed, never fails the
  comparison: on another machine a K-means start or a tie flips on a last bit and moves such numbers.

Verdict columns (a claim's outcome, "beats chance", within tolerance of the paper) are
compared as text in every table, and a changed verdict fails the comparison as a scorecard number beyond
tolerance does, but for one that moves between an answer and "too close to call" (``chance.TOO_CLOSE``: the
number lies within its own spread of the line, where another machine may put it on either side), which is
within tolerance. A row whose text names are the same on both sides but whose integer names differ (a best
feature count, a count of wins that changed renames its row) is one row that changed: in the scorecard it fails
the comparison, in any other table it is listed as moved, as that table's other numbers are. Files and rows
present on one side only are listed and do not fail it, so that a partial run compares what it has.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .chance import TOO_CLOSE

TIME_WORDS = ("seconds", "time")  # a column, metric or published-table column about time
INTERMEDIATE = {"metrics", "selections", "shared", "chance"}  # folders of per-run files, read through the tables
# measured, not computed: a run's part-by-part wall times (benchmarks/full_run.py), its jobs' times and memory
MEASURED = {"full_run.csv", "full_run.md", "job_times.csv", "job_records.csv"}
OUTPUT_SUFFIXES = (".csv", ".md", ".png")  # what a reader looks at, and what a reference folder keeps
EXPERIMENT_SUMMARY = "summary.csv"  # an experiment's, beside its metrics.parquet: per-run data (output_files)
# text columns whose value is a verdict of the run, not the name of a row
VERDICTS = ("outcome", "verdict", "within_tolerance", "reproduced_beats_chance", "published_beats_chance",
            "closest_reading", "group")
SCORECARD = "scorecard.csv"  # the decisive table: its numbers are held to the scorecard's tolerances
# scorecard columns computed from another of its columns (difference = reproduced - published): their move is
# that column's, which decides; a relative tolerance taken of the difference itself would be of the wrong number
DERIVED = ("difference",)
CLAIM_VERDICTS = {"scorecard.csv": "outcome", "claims.csv": "verdict"}  # file name -> its claim-verdict column
# Round-off between machines: float cells no published metric covers (statistics, spectra, ranks of means)
NUMERIC = {"absolute": 1e-9, "relative": 1e-6}
_NUMBER = re.compile(r"[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?")
_OCCURRENCE = re.compile(r"#\d+$")  # the "#2" a row's name gets when its key cells repeat an earlier row's


def _is_time(text) -> bool:
    return any(word in str(text).lower() for word in TIME_WORDS)


def _text(value) -> str:
    if isinstance(value, (float, np.floating)):
        return "nan" if np.isnan(value) else format(float(value), ".17g")
    return str(value)


def table_files(results: Path) -> list[Path]:
    """The CSV tables of a results folder a reader looks at, in a stable order."""
    results = Path(results)
    return sorted(p for p in results.rglob("*.csv")
                  if not INTERMEDIATE & set(p.relative_to(results).parts[:-1]) and p.name not in MEASURED)


def output_files(results: Path) -> list[str]:
    """Every table, text and figure of a results folder (relative paths), the per-run files aside.

    An experiment's ``summary.csv`` (beside its ``metrics.parquet``: the per-run metrics averaged per setting,
    count and metric, 11 MB for IVFS's grids) is per-run data read through the tables too, so it is left out
    like the parquet; a report's ``summary.csv`` (the benchmark's ranks) is a table.
    """
    results = Path(results)
    return sorted(p.relative_to(results).as_posix() for p in results.rglob("*")
                  if p.suffix in OUTPUT_SUFFIXES and not INTERMEDIATE & set(p.relative_to(results).parts[:-1])
                  and p.name not in MEASURED and not _experiment_summary(p))


def _experiment_summary(path: Path) -> bool:
    return path.name == EXPERIMENT_SUMMARY and (path.parent / "metrics.parquet").is_file()


def _label(value) -> str:
    """A key cell as part of a row's name: integers as they are, numbers inside a text masked ("55 %" -> "# %")."""
    return _NUMBER.sub("#", value) if isinstance(value, str) else _text(value)


def _table_cells(frame: pd.DataFrame, name: str) -> list[tuple]:
    values = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c]) or c in VERDICTS]
    keys = [c for c in frame.columns if c not in values]
    timed = frame[keys].map(_is_time).any(axis=1) if keys else pd.Series(False, index=frame.index)
    metric = frame["metric"].astype(str) if "metric" in frame else pd.Series("", index=frame.index)
    labels = ["|".join(_label(v) for v in row) for row in frame[keys].itertuples(index=False)]
    seen: dict[str, int] = {}
    rows = []
    for i in np.flatnonzero(~timed.to_numpy()):
        label = labels[i] or "row"
        seen[label] = seen.get(label, 0) + 1
        label = f"{label}#{seen[label]}" if seen[label] > 1 else label
        for c in values:
            if not _is_time(c):
                rows.append((name, label, c, metric.iat[i], _text(frame[c].iat[i])))
    return rows


CELL_COLUMNS = ["file", "row", "column", "metric", "value"]


def cells(results: Path) -> pd.DataFrame:
    """(file, row, column, metric, value) for every value cell of every table of ``results``, times left out.

    ``value`` is the cell's exact text (floats to 17 significant digits); ``metric`` is the row's metric where
    the table has a ``metric`` column.
    """
    results = Path(results)
    rows = []
    for path in table_files(results):
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
        rows += _table_cells(frame, path.relative_to(results).as_posix())
    out = pd.DataFrame(rows, columns=CELL_COLUMNS)
    return out.sort_values(["file", "row", "column"], kind="stable").reset_index(drop=True)


def read_cells(source: Path) -> pd.DataFrame:
    """Cells of a results folder, or of a file written by ``write_cells`` (a stored snapshot of a run)."""
    source = Path(source)
    if source.is_dir():
        return cells(source)
    return pd.read_csv(source, dtype=str, keep_default_na=False)[CELL_COLUMNS]


def write_cells(results: Path, out: Path) -> None:
    """Store the cells of a results folder (gzip-compressed CSV when ``out`` ends in .gz)."""
    cells(results).to_csv(out, index=False)


def tolerance_for(metric: str, column: str, tolerances: dict) -> dict:
    """The tolerance of a cell: its row's metric, else its column's name, in ``tolerances``; else ``NUMERIC``."""
    for name in (metric, column):
        if name in tolerances:
            return tolerances[name]
    return NUMERIC


def decisive(file: str, column: str) -> bool:
    """Whether a number of this cell decides the comparison: the scorecard's, but for its ``DERIVED`` columns."""
    return file == SCORECARD and column not in DERIVED


def cell_tolerance(file: str, metric: str, column: str, tolerances: dict) -> dict:
    """The tolerance a cell is held to: its metric's in the scorecard, round-off (``NUMERIC``) elsewhere."""
    return tolerance_for(metric, column, tolerances) if decisive(file, column) else NUMERIC


def within(reference: float, mine: float, tol: dict) -> bool:
    """``mine`` agrees with ``reference`` under ``tol`` ({absolute, relative} or {factor}); NaN only with NaN."""
    if np.isnan(reference) or np.isnan(mine):
        return bool(np.isnan(reference) and np.isnan(mine))
    if "factor" in tol:
        low, high = sorted((reference / tol["factor"], reference * tol["factor"]))
        return low <= mine <= high
    allowed = max(tol.get("absolute", 0.0), tol.get("relative", 0.0) * abs(reference))
    return abs(mine - reference) <= allowed + 1e-12 * max(1.0, abs(reference))


IDENTICAL, WITHIN, MOVED, BEYOND = "identical", "within tolerance", "moved beyond round-off", "beyond tolerance"
ONLY_MINE, ONLY_REFERENCE = "only in this run", "only in the reference"
STATUSES = (IDENTICAL, WITHIN, MOVED, BEYOND, ONLY_MINE, ONLY_REFERENCE)


def _status(row, tolerances: dict) -> str:
    if row.value == row.value_reference:
        return IDENTICAL
    if row.column in VERDICTS:  # from or to "too close to call" is a verdict at its edge; yes <-> no is not
        return WITHIN if TOO_CLOSE in (row.value, row.value_reference) else BEYOND
    try:
        mine, ref = float(row.value), float(row.value_reference)
    except ValueError:
        return BEYOND
    if within(ref, mine, cell_tolerance(row.file, row.metric, row.column, tolerances)):
        return WITHIN
    return BEYOND if decisive(row.file, row.column) else MOVED


def _text_name(row: str) -> str:
    """A row's name with its integer key cells (the only digits left in it) and occurrence number masked."""
    return re.sub(r"\d+", "#", _OCCURRENCE.sub("", row))


def _renamed(both: pd.DataFrame) -> pd.Series:
    """Rows of one side whose text names the other side also has only among its own unmatched rows: an
    integer key cell (a best count, a number of wins) changed, so the row was renamed, not added."""
    one_side = both["status"].isin([ONLY_MINE, ONLY_REFERENCE])
    names = both["file"] + "\0" + both["row"].map(_text_name)
    sides = both[one_side].groupby(names[one_side])["status"].nunique()
    return one_side & names.map(sides).eq(2)


def part_of(file: str) -> str:
    """The part of a run a file belongs to: its report or experiment folder, or the top-level file's name."""
    return file.split("/", 1)[0] if "/" in file else file.rsplit(".", 1)[0]


@dataclass
class Comparison:
    """The cells of a run beside a reference's, each with its status, and the output files of either side."""

    cells: pd.DataFrame  # file, row, column, metric, value, value_reference, status, part
    files_only_mine: list[str] = field(default_factory=list)
    files_only_reference: list[str] = field(default_factory=list)

    def of(self, status: str) -> pd.DataFrame:
        return self.cells[self.cells["status"] == status]

    @property
    def verdicts_changed(self) -> pd.DataFrame:
        """Claim verdicts (the scorecard's claim rows, each paper's claims.csv) that differ."""
        changed = self.of(BEYOND)
        name = changed["file"].str.rsplit("/", n=1).str[-1]
        return changed[changed["column"] == name.map(CLAIM_VERDICTS)]

    @property
    def agrees(self) -> bool:
        """No scorecard number beyond tolerance or row renamed, no verdict flipped (moves of other tables beyond
        round-off, their renamed rows, and files or rows on one side only, do not count)."""
        return self.of(BEYOND).empty

    @property
    def all_identical(self) -> bool:
        return (self.cells["status"] == IDENTICAL).all() and not self.files_only_mine and not self.files_only_reference


def compare(mine: pd.DataFrame, reference: pd.DataFrame, tolerances: dict, *,
            files_mine=(), files_reference=()) -> Comparison:
    """Compare two sets of cells (``cells``/``read_cells``) under ``tolerances`` (the scorecard's, by metric).

    ``files_mine``/``files_reference``: the output files of either side (``output_files``), when known, to list
    the figures and tables only one side has.
    """
    both = mine.merge(reference, on=["file", "row", "column"], how="outer", suffixes=("", "_reference"))
    both["metric"] = both["metric"].fillna(both["metric_reference"]).fillna("")
    only_ref, only_mine = both["value"].isna(), both["value_reference"].isna()
    both["status"] = [ONLY_REFERENCE if r else ONLY_MINE if m else _status(row, tolerances)
                      for r, m, row in zip(only_ref, only_mine, both.itertuples(index=False))]
    renamed = _renamed(both)
    both.loc[renamed, "status"] = np.where(both.loc[renamed, "file"] == SCORECARD, BEYOND, MOVED)
    both["part"] = both["file"].map(part_of)
    table = both.drop(columns="metric_reference")
    mine_files, ref_files = set(files_mine), set(files_reference)
    if mine_files and ref_files:
        only_m, only_r = sorted(mine_files - ref_files), sorted(ref_files - mine_files)
    else:  # a side whose files are not known: its tables are what its cells name
        named_m, named_r = set(mine["file"]), set(reference["file"])
        only_m, only_r = sorted(named_m - named_r), sorted(named_r - named_m)
    return Comparison(table, only_m, only_r)


def compare_runs(results: Path, reference: Path, tolerances: dict) -> Comparison:
    """``compare`` of a results folder with a reference folder (or a stored cells file).

    An experiment's ``summary.csv`` (per-run data, ``output_files``) is compared where both sides have it (two
    results folders, a stored snapshot) and left out where only one does: a reference that ``ufskit reference``
    built never holds it, so its cells are not "only in this run"."""
    results, reference = Path(results), Path(reference)
    mine, theirs = cells(results), read_cells(reference)
    if reference.is_dir():
        mine = _without_one_sided_summaries(mine, results, theirs)
        theirs = _without_one_sided_summaries(theirs, reference, mine)
    return compare(mine, theirs, tolerances, files_mine=output_files(results),
                   files_reference=output_files(reference) if reference.is_dir() else ())


def _without_one_sided_summaries(cells_of: pd.DataFrame, folder: Path, other: pd.DataFrame) -> pd.DataFrame:
    """``cells_of`` (a folder's cells) without those of its experiments' ``summary.csv`` that ``other`` lacks."""
    one_sided = {f for f in set(cells_of["file"]) - set(other["file"]) if _experiment_summary(folder / f)}
    return cells_of[~cells_of["file"].isin(one_sided)]


def _pair(row) -> str:
    return f"{row.file} [{row.row}] {row.column}: {row.value} (reference {row.value_reference})"


def _listed(result: Comparison, part: str, status: str, word: str, limit: int) -> list[str]:
    shown = result.cells[(result.cells["part"] == part) & (result.cells["status"] == status)]
    lines = [f"  {word}: {_pair(r)}" for r in shown.head(limit).itertuples()]
    return lines + ([f"  ... and {len(shown) - limit} more {status}"] if len(shown) > limit else [])


def report(result: Comparison, *, limit: int = 20) -> str:
    """Plain text, per part of the run: counts by status, every cell beyond tolerance with both values, the
    claim verdicts that changed, and what only one side has."""
    lines = []
    counts = result.cells.groupby(["part", "status"]).size().unstack(fill_value=0)
    for part, row in counts.iterrows():
        lines.append(f"{part}: " + ", ".join(f"{row.get(s, 0)} {s}" for s in STATUSES if row.get(s, 0)))
        lines += _listed(result, part, BEYOND, "beyond", limit) + _listed(result, part, MOVED, "moved", limit)
    verdicts = result.verdicts_changed
    if not verdicts.empty:
        lines.append(f"claim verdicts changed: {len(verdicts)}")
        lines += [f"  {_pair(r)}" for r in verdicts.itertuples()]
    for title, files in (("only in this run", result.files_only_mine),
                         ("not in this run (only in the reference)", result.files_only_reference)):
        if files:
            shown = ", ".join(files[:limit]) + (f", ... ({len(files)} in all)" if len(files) > limit else "")
            lines.append(f"files {title}: {shown}")
    if result.all_identical:
        verdict = "identical"
    elif result.agrees:
        moved = len(result.of(MOVED))
        verdict = ("agrees: every scorecard number within its tolerance, no verdict changed"
                   + (f" ({moved} cells of other tables moved beyond round-off)" if moved else ""))
    else:
        verdict = (f"differs: {len(result.of(BEYOND))} cells beyond tolerance or with a changed verdict or "
                   f"row name, {len(verdicts)} claim verdicts changed")
    lines.append(f"overall: {verdict}")
    return "\n".join(lines)
