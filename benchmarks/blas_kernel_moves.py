"""How far a run's numbers move under another BLAS kernel: the largest moves per table column, and verdict flips.

    python benchmarks/blas_kernel_moves.py RESULTS_A RESULTS_B [--config config/config.yaml] [--top 25]

Run the same protocol twice on one machine, once with the default kernel and once with another forced
(``OPENBLAS_CORETYPE=Sandybridge snakemake ...``; threadpoolctl's ``architecture`` names the kernel in use),
then compare the two results folders with ``ufskit.compare``: the script prints, per (file, column), how many
cells differ at all and the largest absolute and relative move with the tolerance that applies (the scorecard's
for the cell's metric in the scorecard, round-off in other tables), then every scorecard cell beyond its
tolerance and every verdict or row name that changed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from ufskit.compare import BEYOND, IDENTICAL, MOVED, NUMERIC, VERDICTS, cell_tolerance, compare_runs
from ufskit.configio import load_yaml


def moves(result_cells: pd.DataFrame, tolerances: dict) -> pd.DataFrame:
    """Per (file, column): cells compared, cells that differ, the largest |move| and |move| / |value|."""
    numeric = result_cells[~result_cells["column"].isin(VERDICTS) & result_cells["value_reference"].notna()
                           & result_cells["value"].notna()].copy()
    a = pd.to_numeric(numeric["value"], errors="coerce")
    b = pd.to_numeric(numeric["value_reference"], errors="coerce")
    numeric["abs_move"] = (a - b).abs()
    numeric["rel_move"] = numeric["abs_move"] / b.abs().where(b != 0)
    numeric["moved"] = numeric["status"] != IDENTICAL
    numeric["tolerance"] = [str(cell_tolerance(f, m, c, tolerances))
                            for f, m, c in zip(numeric["file"], numeric["metric"], numeric["column"])]
    out = numeric.groupby(["file", "column", "tolerance"]).agg(
        cells=("value", "size"), moved=("moved", "sum"), largest_abs=("abs_move", "max"),
        largest_rel=("rel_move", "max"), beyond=("status", lambda s: int(s.isin([BEYOND, MOVED]).sum())))
    return out[out["moved"] > 0].sort_values("largest_rel", ascending=False).reset_index()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path, help="the run compared with (its values are the reference)")
    parser.add_argument("--config", type=Path, default=Path("config/config.yaml"))
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    tolerances = load_yaml(args.config)["scorecard"]["tolerances"]
    result = compare_runs(args.a, args.b, tolerances)
    cells = result.cells
    print(f"{len(cells)} cells; {int((cells['status'] == IDENTICAL).sum())} identical; round-off tolerance {NUMERIC}")
    print(cells["status"].value_counts().to_string())
    table = moves(cells, tolerances)
    with pd.option_context("display.width", 200, "display.max_colwidth", 60, "display.float_format", "{:.3g}".format):
        print(f"\ncolumns with moved cells: {len(table)}; the {args.top} largest relative moves:")
        print(table.head(args.top).to_string(index=False))
        beyond = cells[cells["status"] == BEYOND]
        print(f"\nscorecard cells beyond tolerance, verdicts or row names changed: {len(beyond)}")
        if len(beyond):
            print(beyond[["file", "row", "column", "value", "value_reference"]].to_string(index=False))
    print(f"\nlargest relative move of any moved cell: {np.nanmax(table['largest_rel']) if len(table) else 0:.3g}")


if __name__ == "__main__":
    main()
