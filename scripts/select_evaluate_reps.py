"""Rule run_batched_reps: every repetition of one batched method on one dataset, selected and evaluated.

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
for rep, (fit_seed, eval_seed) in enumerate(zip(p.fit_seeds, p.evaluation_seeds, strict=True)):
    sel = fit_run(ds, p.spec, fit_seed, p.n_features, label=f"{w.dataset} (rep {rep})")
    frames.append(evaluate_run(ds, sel, p.n_features, p.metrics, eval_seed, dataset=w.dataset, method=w.method,
                               params=w.params, rep=rep, diagram=diagram))
    log.info("rep %d of %d done", rep + 1, len(p.fit_seeds))
frame = pd.concat(frames, ignore_index=True)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%d metric rows written from %d repetitions", len(frame), len(frames))
