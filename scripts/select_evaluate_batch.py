"""Rule run_batched_method: the runs of one shard of a batched method on one dataset, selected and evaluated in
one job (every grid point and repetition of a `batch: true` method; an IVFS experiment's settings sharing one fit).

The seeds are those the separate select/evaluate jobs would get, so the table is theirs, concatenated.
"""

import sys

from ufskit.data import load_dataset
from ufskit.metrics import load_diagram
from ufskit.runlog import start
from ufskit.runs import run_batched

sys.path[:0] = snakemake.config.get("python_path", [])  # user selectors named by import path
log = start(snakemake.log[0], snakemake.threads)
w, p = snakemake.wildcards, snakemake.params
ds = load_dataset(snakemake.input.data)
diagram = load_diagram(snakemake.input.diagram) if "diagram" in snakemake.input.keys() else None
frame = run_batched(ds.X, ds.y, p.runs, p.n_features, p.metrics, n_classes=ds.n_classes, dataset=w.dataset,
                    method=w.method, diagram=diagram)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%d metric rows written from %d runs", len(frame), len(p.runs))
