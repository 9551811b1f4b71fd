"""Rule ils_fig2_curves: Fig. 2's K-means curves per number of clusters (drawn people + all people)."""

import json

import pandas as pd

from ufskit.papers.ils import cluster_curves
from ufskit.runlog import start

start(snakemake.log[0])
n_classes = json.load(open(snakemake.input.orl))["n_classes"]
parts = [pd.read_parquet(p) for p in snakemake.input.parts]
cluster_curves(pd.read_csv(snakemake.input.summary), parts, n_classes).to_csv(snakemake.output[0], index=False)
