"""Rule nrfs_table1: Table I (reproduced beside published) as CSV and Markdown."""

import pandas as pd

from ufskit.intermediates import read_parquet
from ufskit.papers import with_in_paper
from ufskit.papers.nrfs import read_published, table1, table1_markdown
from ufskit.runlog import start
from ufskit.tables import write_markdown

start(snakemake.log[0])
runs = pd.concat([read_parquet(p) for p in snakemake.input.runs], ignore_index=True)
table = with_in_paper(table1(runs, read_published(snakemake.input.published)), snakemake.params.methods)
table.to_csv(snakemake.output.csv, index=False)
write_markdown(table1_markdown(table, snakemake.params.n_features[0]), snakemake.output.md, snakemake.output.html)
