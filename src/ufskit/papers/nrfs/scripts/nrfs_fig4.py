"""Rule nrfs_fig4: the representatives NRFS keeps on the synthetic data, noisy instances marked."""

from ufskit.data import load_dataset
from ufskit.intermediates import read_npz
from ufskit.papers.nrfs import figure4
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
ds = load_dataset(snakemake.input.data)
s = read_npz(snakemake.input.sampling, "sampling archive")
fig = figure4(ds.X, ds.y, s["noise_indices"], s["representatives"], s["removed"], protocol=protocol)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
