"""Rule nrfs_fig6: NRFS's NMI for each size q of the feature neighbourhoods."""

import pandas as pd

from ufskit.intermediates import read_parquet
from ufskit.papers.nrfs import figure6, param_columns, q_curves
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
frame = pd.concat([read_parquet(p) for p in snakemake.input], ignore_index=True)
curves = q_curves(frame, param_columns(snakemake.params.experiments))
curves.to_csv(snakemake.output.csv, index=False)
save_figure(figure6(curves, snakemake.params.groups, protocol=protocol), snakemake.output.png, snakemake.output.pdf)
