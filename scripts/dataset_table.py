"""Rule dataset_table: the datasets of an experiment as prepared (n, d, classes, preprocessing)."""

from ufskit.intermediates import read_json
from ufskit.results import dataset_table
from ufskit.runlog import start

start(snakemake.log[0])
summaries = {name: read_json(path) for name, path in zip(snakemake.params.names, snakemake.input)}
with open(snakemake.output[0], "w") as fh:
    fh.write(f"# Datasets of experiment {snakemake.wildcards.experiment}, as prepared\n\n")
    fh.write(dataset_table(summaries))
