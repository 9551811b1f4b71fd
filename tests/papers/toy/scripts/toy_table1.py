"""Rule toy_table1: the toy paper's Table 1, Fig. 1's points and its claim's verdict from its experiment's summary."""

from pathlib import Path

import pandas as pd

from ufskit.papers import paper_package
from ufskit.runlog import start
from ufskit.tables import write_markdown

start(snakemake.log[0])
paper = paper_package(__file__)  # this folder's package, built in (ufskit.papers.toy) or from paper_folders (toy)
summary = pd.read_csv(snakemake.input.summary)
table = paper.table1(summary)
table.to_csv(snakemake.output.table, index=False)
paper.curve(summary).to_csv(snakemake.output.curve, index=False)
write_markdown(paper.table1_markdown(table), snakemake.output.md, snakemake.output.html)
verdicts = paper.claims(table)
verdicts.to_csv(snakemake.output.claims, index=False)
Path(snakemake.output.claims_md).write_text(paper.claims_markdown(verdicts))
