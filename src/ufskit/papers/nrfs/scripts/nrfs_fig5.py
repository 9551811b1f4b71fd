"""Rule nrfs_fig5: NMI against the number of selected features, one panel per dataset."""

import pandas as pd

from ufskit.intermediates import read_json, read_parquet
from ufskit.papers import with_in_paper
from ufskit.papers.nrfs import all_methods, figure5, nmi_band, nmi_curves, param_columns
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
frame = pd.concat([read_parquet(p) for p in snakemake.input.metrics], ignore_index=True)
n_samples = {name: read_json(p)["n_samples"] for name, p in zip(snakemake.params.names, snakemake.input.summaries)}
params = param_columns(snakemake.params.experiments)
methods = all_methods(snakemake.params.experiments)
curves = with_in_paper(nmi_curves(frame, params, n_samples), methods)  # an added method's curve: in_paper False
curves.to_csv(snakemake.output.csv, index=False)
kmeans_all = pd.concat([read_parquet(p) for p in snakemake.input.kmeans_all], ignore_index=True)
fig = figure5(curves, kmeans_all, snakemake.params.groups, band=nmi_band(frame, params), protocol=protocol)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
