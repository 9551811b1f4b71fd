"""Rule ils_table1: the UCI datasets as prepared beside the ILS paper's Table 1."""

import pandas as pd

from ufskit.intermediates import read_json
from ufskit.papers.ils import table1
from ufskit.runlog import start
from ufskit.tables import write_markdown

start(snakemake.log[0])
prepared = {name: read_json(path) for name, path in zip(snakemake.params.names, snakemake.input.summaries)}
published = pd.read_csv(snakemake.input.published, comment="#")
write_markdown("# ILS paper, Table 1: statistics of the UCI data sets (paper vs this reproduction)\n\n"
               + table1(prepared, published)
               + "\nPreparation of each set: docs/fidelity/data-sources.md (Iterative Laplacian Score section).\n",
               snakemake.output.md, snakemake.output.html)
