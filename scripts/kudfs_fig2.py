"""Rule kudfs_fig2: accuracy vs number of selected features per dataset (the paper's Fig. 2)."""

import pandas as pd

from ufskit.papers import kudfs
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
curves = pd.read_csv(snakemake.input.curves, dtype={"n_features": "Int64"})
fig = kudfs.figure2(curves, kudfs.read_published(snakemake.input.published), kernel=snakemake.params.kernel,
                    protocol=snakemake.config.get("protocol", "full"))
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
