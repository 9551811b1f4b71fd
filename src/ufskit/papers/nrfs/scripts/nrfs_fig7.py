"""Rule nrfs_fig7: mean fit time of every algorithm per dataset."""

import pandas as pd

from ufskit.intermediates import read_parquet
from ufskit.papers import with_in_paper
from ufskit.papers.nrfs import all_methods, figure7, fit_times, param_columns
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
frame = pd.concat([read_parquet(p) for p in snakemake.input], ignore_index=True)
methods = all_methods(snakemake.params.experiments)
times = with_in_paper(fit_times(frame, param_columns(snakemake.params.experiments)), methods)  # added: in_paper False
times.to_csv(snakemake.output.csv, index=False)
save_figure(figure7(times, snakemake.params.groups, protocol=protocol), snakemake.output.png, snakemake.output.pdf)
