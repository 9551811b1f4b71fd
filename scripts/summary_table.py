"""Rule summary_table: mean over repetitions per dataset, method, parameters, count and metric."""

from ufskit.intermediates import read_parquet
from ufskit.results import summarize, to_markdown
from ufskit.runlog import start

start(snakemake.log[0])
summary = summarize(read_parquet(snakemake.input[0]))
summary.to_csv(snakemake.output.csv, index=False)
with open(snakemake.output.md, "w") as fh:
    fh.write(f"# {snakemake.wildcards.experiment}: best value per dataset, method and metric\n\n")
    fh.write(to_markdown(summary))
