"""Rule nrfs_sensitivity_figure: the sweep of the synthetic data's generator options, published values marked."""

from ufskit.intermediates import read_csv
from ufskit.papers import read_published
from ufskit.papers.nrfs.calibration import figure_sensitivity
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")
fig = figure_sensitivity(read_csv(snakemake.input.sweep), read_published(snakemake.input.published),
                         dict(snakemake.params.base), protocol=protocol)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
