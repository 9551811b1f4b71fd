"""Rule nrfs_fig1: the synthetic data in the (f1, f2), (f3, f4) and (f5, f6) planes."""

from ufskit.data import load_dataset
from ufskit.papers.nrfs import figure1
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
ds = load_dataset(snakemake.input[0])
fig = figure1(ds.X, ds.y, ds.info["noise_indices"], protocol=protocol)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
