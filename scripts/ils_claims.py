"""Rule ils_claims: each claim of the ILS paper with the reproduced numbers and a verdict."""

import pandas as pd

from ufskit.papers.ils import claims_report
from ufskit.runlog import start

start(snakemake.log[0])
report = claims_report(
    uci=pd.read_csv(snakemake.input.uci), variants=pd.read_csv(snakemake.input.variants),
    clusters=pd.read_csv(snakemake.input.fig2), train_size=pd.read_csv(snakemake.input.fig3),
)
with open(snakemake.output[0], "w") as fh:
    fh.write(report)
