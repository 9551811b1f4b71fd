"""Rule ils_orl_figure: Fig. 2 (K-means per number of clusters) or Fig. 3 (1-NN per d) from its curves table."""

from ufskit.intermediates import read_csv
from ufskit.papers.ils import figure2, figure3
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
draw = {"fig2": figure2, "fig3": figure3}[snakemake.wildcards.figure]
extra = {"band": read_csv(snakemake.input.band)} if "band" in snakemake.input.keys() else {}
fig = draw(read_csv(snakemake.input.curves), **snakemake.params.settings, **extra, protocol=protocol)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
