"""Rule ils_fig3_curves: Fig. 3's 1-NN curves per training size and d (mean over splits)."""

import pandas as pd

from ufskit.intermediates import read_parquet
from ufskit.papers.ils import mean_curves
from ufskit.runlog import start

start(snakemake.log[0])
frame = pd.concat([read_parquet(p) for p in snakemake.input], ignore_index=True)
mean_curves(frame, ["n_train"]).to_csv(snakemake.output[0], index=False)
