"""Rule benchmark_heatmap: the rank heat-maps (the mean ranks; per group of metrics each dataset's ranks)."""

from ufskit.intermediates import read_csv
from ufskit.papers import benchmark
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
summary, ranks = read_csv(snakemake.input.summary), read_csv(snakemake.input.ranks)
fig = benchmark.heatmap(summary, ranks, protocol=protocol, heading=snakemake.params.title)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
for group in benchmark.HEATMAP_GROUPS:
    fig = benchmark.heatmap_group(summary, ranks, group, protocol=protocol, heading=snakemake.params.title)
    save_figure(fig, getattr(snakemake.output, group))
