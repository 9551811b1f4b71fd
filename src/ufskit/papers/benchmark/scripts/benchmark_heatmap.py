"""Rule benchmark_heatmap: the rank heat-map (mean rank per metric, and each dataset's ranks)."""

from ufskit.intermediates import read_csv
from ufskit.papers import benchmark
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
fig = benchmark.heatmap(read_csv(snakemake.input.summary), read_csv(snakemake.input.ranks), protocol=protocol,
                        heading=snakemake.params.title)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
