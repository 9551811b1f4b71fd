"""Rule tuned_vs_chance: every tuned method's best setting against Random's best of G, per dataset and metric."""

import pandas as pd

from ufskit.intermediates import read_parquet
from ufskit.papers import tuned
from ufskit.runlog import start
from ufskit.tables import write_markdown

log = start(snakemake.log[0])
metrics = pd.concat([read_parquet(p) for p in snakemake.input], ignore_index=True)
table = tuned.tuned_versus_chance(metrics, identity=snakemake.wildcards.report)
table.to_csv(snakemake.output.csv, index=False, float_format="%.6g")
write_markdown(tuned.tuned_markdown(table, snakemake.params.methods), snakemake.output.md, snakemake.output.html)
log.info("%d comparisons: %s", len(table), table["verdict"].value_counts().to_dict())
