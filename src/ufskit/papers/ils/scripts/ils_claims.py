"""Rule ils_claims: each claim of the ILS paper with the reproduced numbers and a verdict (markdown and CSV)."""

from ufskit.intermediates import read_csv
from ufskit.papers import claims_frame
from ufskit.papers.ils import claims, claims_report
from ufskit.runlog import start
from ufskit.tables import write_markdown

start(snakemake.log[0])
found = claims(
    uci=read_csv(snakemake.input.uci), variants=read_csv(snakemake.input.variants),
    clusters=read_csv(snakemake.input.fig2), train_size=read_csv(snakemake.input.fig3),
)
write_markdown(claims_report(found), snakemake.output.md, snakemake.output.html)
claims_frame(found).to_csv(snakemake.output.csv, index=False)
