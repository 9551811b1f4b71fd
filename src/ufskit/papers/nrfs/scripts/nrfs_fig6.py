"""Rule nrfs_fig6: NRFS's NMI for each size q of the feature neighbourhoods (added methods' curves beside)."""

import pandas as pd

from ufskit.intermediates import read_parquet
from ufskit.papers.nrfs import added_curves, all_methods, figure6, param_columns, q_curves
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
frame = pd.concat([read_parquet(p) for p in snakemake.input], ignore_index=True)
curves = q_curves(frame, param_columns(snakemake.params.experiments))
curves.to_csv(snakemake.output.csv, index=False)
methods = all_methods(snakemake.params.experiments)
fig = figure6(curves, snakemake.params.groups, added=added_curves(frame, methods), protocol=protocol)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
