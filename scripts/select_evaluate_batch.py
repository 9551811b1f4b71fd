"""Rule run_batched_method: every grid point and repetition of one batched method on one dataset,
selected and evaluated in one job.

The seeds are those the separate select/evaluate jobs would get, so the table is theirs, concatenated.
"""

import sys

import pandas as pd

from ufskit.data import load_dataset
from ufskit.metrics import load_diagram
from ufskit.runlog import start
from ufskit.runs import evaluate_run, fit_run

sys.path[:0] = snakemake.config.get("python_path", [])  # user selectors named by import path
log = start(snakemake.log[0], snakemake.threads)
w, p = snakemake.wildcards, snakemake.params
ds = load_dataset(snakemake.input.data)
diagram = load_diagram(snakemake.input.diagram) if "diagram" in snakemake.input.keys() else None
frames = []
for i, run in enumerate(p.runs, start=1):
    label = f"{w.dataset} ({run['params']}, rep {run['rep']})"
    sel = fit_run(ds, run["spec"], run["fit_seed"], p.n_features, label=label)
    frames.append(evaluate_run(ds, sel, p.n_features, p.metrics, run["evaluation_seed"], dataset=w.dataset,
                               method=w.method, params=run["params"], rep=run["rep"], diagram=diagram))
    log.info("run %d of %d done: %s", i, len(p.runs), label)
frame = pd.concat(frames, ignore_index=True)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%d metric rows written from %d runs", len(frame), len(frames))
