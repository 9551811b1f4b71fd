"""Rule benchmark_stats: per metric the Friedman test over datasets, Nemenyi p-values and the CD diagrams."""

from ufskit.intermediates import read_csv
from ufskit.papers import benchmark_stats
from ufskit.plots import save_figure
from ufskit.runlog import start
from ufskit.tables import write_markdown

log = start(snakemake.log[0])
table, results = benchmark_stats.benchmark_stats(read_csv(snakemake.input.summary))
table.to_csv(snakemake.output.csv, index=False, float_format="%.6g")
heading = snakemake.params.title
write_markdown(benchmark_stats.stats_markdown(results, heading=heading), snakemake.output.md, snakemake.output.html)
save_figure(benchmark_stats.cd_figure(results, heading=heading), snakemake.output.png, snakemake.output.pdf)
for metric, res in results.items():
    log.info("%s: Friedman chi2 %.4g, p %.3g (%d methods, %d datasets)", metric, res["chi2"], res["p"],
             res["n_methods"], res["n_datasets"])
