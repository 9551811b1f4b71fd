"""Rule benchmark_summary: the benchmark families' metrics -> summary (csv, md) and mean ranks."""

import pandas as pd

from ufskit.intermediates import read_parquet
from ufskit.papers import benchmark
from ufskit.runlog import start
from ufskit.tables import write_markdown

log = start(snakemake.log[0])
c = snakemake.params.config
planned = benchmark.plan(c["experiments"], c["excluded"])
metrics = pd.concat([read_parquet(p) for p in snakemake.input], ignore_index=True)
summary = benchmark.summary_table(metrics, planned)
ranks = benchmark.mean_ranks(summary)
summary.to_csv(snakemake.output.csv, index=False, float_format="%.6g")
ranks.to_csv(snakemake.output.ranks, index=False, float_format="%.4g")
write_markdown(benchmark.summary_markdown(summary, ranks, benchmark.protocol_markdown(c["experiments"]),
                                         heading=snakemake.params.title),
               snakemake.output.md, snakemake.output.html)
log.info("%d summary rows, %d (method, metric) mean ranks", len(summary), len(ranks))
