"""Rule ils_variants: IterativeLS-1 vs IterativeLS-2 per dataset (accuracy gaps, overlap of the selections)."""

from ufskit.intermediates import read_csv
from ufskit.papers.ils import ILS, ILS2, variants_table
from ufskit.runlog import start
from ufskit.selection_io import load_selection

start(snakemake.log[0])
datasets = sorted({key.split(":")[0] for key in snakemake.input.keys() if ":" in key})
orders = {}
for d in datasets:
    first, second = load_selection(snakemake.input[f"{d}:{ILS}"]), load_selection(snakemake.input[f"{d}:{ILS2}"])
    orders[d] = (first.order, second.subsets)
summary = read_csv(snakemake.input.summary)
variants_table(summary[summary["metric"] == "cv1nn_acc"], orders).to_csv(snakemake.output[0], index=False)
