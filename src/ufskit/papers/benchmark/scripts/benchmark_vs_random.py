"""Rule benchmark_vs_random: every method against the Random selector's draws, per dataset and metric, and across
datasets (Wilcoxon)."""

import pandas as pd

from ufskit.intermediates import read_parquet
from ufskit.papers import benchmark, benchmark_stats
from ufskit.runlog import start
from ufskit.tables import write_markdown

log = start(snakemake.log[0])
c = snakemake.params.config
planned = benchmark.plan(c["experiments"], c["excluded"])
metrics = pd.concat([read_parquet(p) for p in snakemake.input], ignore_index=True)
table = benchmark_stats.versus_random(metrics, planned)
across = benchmark_stats.across_datasets(table)
table.to_csv(snakemake.output.csv, index=False, float_format="%.6g")
across.to_csv(snakemake.output.across, index=False, float_format="%.6g")
write_markdown(benchmark_stats.versus_random_markdown(table, heading=snakemake.params.title, across=across),
               snakemake.output.md, snakemake.output.html)
log.info("%d comparisons: %s", len(table), table["verdict"].value_counts().to_dict())
