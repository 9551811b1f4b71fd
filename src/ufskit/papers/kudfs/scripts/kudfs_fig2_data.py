"""Rule kudfs_fig2_data: the curves of the paper's Fig. 2 (kernel UDFS tuned per count, Kernel PCA, Kernel K-means)."""

import pandas as pd

from ufskit.intermediates import read_parquet
from ufskit.papers import kudfs
from ufskit.runlog import start

log = start(snakemake.log[0])
inp = snakemake.input
dims = kudfs.read_dims(inp.summaries)
competitors = pd.concat([read_parquet(p) for p in inp.competitors], ignore_index=True)
curves = kudfs.fig2_curves(read_parquet(inp.kernel), competitors, dims, labels=snakemake.params.labels,
                           extra=snakemake.params.extra)  # added methods: tuned per count, in_paper False
curves.to_csv(snakemake.output[0], index=False)
log.info("%d curve points", len(curves))
