"""Rule select_features: fit one selector on one prepared dataset and store its full ranking (the labels go to
a selector that uses them only: the benchmark's positive control)."""

import sys

from ufskit.data import load_dataset
from ufskit.experiments import check_same_columns, counts_explained
from ufskit.runlog import start
from ufskit.runs import fit_run
from ufskit.selection_io import save_selection

sys.path[:0] = snakemake.config.get("python_path", [])  # user selectors named by import path
start(snakemake.log[0], snakemake.threads)
ds = load_dataset(snakemake.input.data)
if "evaluated" in snakemake.input.keys():  # selected on another chain (select_preprocess): the same columns
    check_same_columns(ds, load_dataset(snakemake.input.evaluated), snakemake.input.data, snakemake.input.evaluated)
with counts_explained(ds.info):  # a count above the prepared width names the columns preprocessing dropped
    sel = fit_run(ds.X, snakemake.params.spec, snakemake.params.seed, n_classes=ds.n_classes,
                  n_features=snakemake.params.n_features, label=snakemake.wildcards.dataset, y=ds.y)
save_selection(sel, snakemake.output[0])
