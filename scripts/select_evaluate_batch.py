"""Rules run_batched_method and nrfs_synthetic_batch: the runs of one shard of a batched method on one dataset,
selected and evaluated in one job (every grid point and repetition of a `batch: true` method; an IVFS experiment's
settings sharing one fit; every method of the NRFS synthetic experiment).

The seeds are those the separate select/evaluate jobs would get, so the table is theirs, concatenated. With a
`selections` output (a folder), each run's selection is kept there as <params>/rep<rep>.npz (NRFS Table I reads them).
"""

import sys
from pathlib import Path

import pandas as pd

from ufskit.data import load_dataset
from ufskit.experiments import counts_explained
from ufskit.metrics import load_diagram
from ufskit.runlog import start
from ufskit.runs import batched_runs
from ufskit.selection_io import save_selection

sys.path[:0] = snakemake.config.get("python_path", [])  # user selectors named by import path
log = start(snakemake.log[0], snakemake.threads)
w, p = snakemake.wildcards, snakemake.params
ds = load_dataset(snakemake.input.data)
diagram = load_diagram(snakemake.input.diagram) if "diagram" in snakemake.input.keys() else None
kept = Path(snakemake.output.selections) if "selections" in snakemake.output.keys() else None
tables = []
with counts_explained(ds.info):  # a count above the prepared width names the columns preprocessing dropped
    for run, selection, table in batched_runs(ds.X, ds.y, p.runs, p.n_features, p.metrics, n_classes=ds.n_classes,
                                              dataset=w.dataset, method=w.method, diagram=diagram):
        if kept is not None:
            (kept / run["params"]).mkdir(parents=True, exist_ok=True)
            save_selection(selection, kept / run["params"] / f"rep{run['rep']}.npz")
        tables.append(table)
frame = pd.concat(tables, ignore_index=True)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%d metric rows written from %d runs", len(frame), len(p.runs))
