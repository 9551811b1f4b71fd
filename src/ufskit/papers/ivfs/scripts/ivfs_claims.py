"""Rule ivfs_claims: a verdict per IVFS claim, with its numbers, from the tables and figure data."""

from ufskit.intermediates import read_csv
from ufskit.papers import claims_frame, paper_rows
from ufskit.papers.ivfs.report import claims
from ufskit.runlog import start
from ufskit.tables import write_markdown

log = start(snakemake.log[0])
i = snakemake.input
text, records = claims(*(paper_rows(read_csv(p)) for p in (i.table1, i.table2, i.fig2, i.fig3, i.fig4)))
write_markdown(text, snakemake.output.md, snakemake.output.html)
claims_frame(records).to_csv(snakemake.output.csv, index=False)
log.info("%d verdicts written", len(records))
