"""Rule nrfs_fig4: the representatives NRFS keeps on the synthetic data, noisy instances marked."""

import numpy as np

from ufskit.data import load_dataset
from ufskit.papers.nrfs import figure4
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
ds = load_dataset(snakemake.input.data)
s = np.load(snakemake.input.sampling)
fig = figure4(ds.X, ds.y, s["noise_indices"], s["representatives"], s["removed"], protocol=snakemake.config.get("protocol", "full"))
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
