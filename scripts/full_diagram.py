"""Rule full_diagram: the H1 persistence diagram of the full data, computed once per dataset."""

import time

from ufskit.data import load_dataset
from ufskit.metrics import h1_diagram, normalized_distance_matrix, save_diagram
from ufskit.runlog import start

log = start(snakemake.log[0], snakemake.threads)
opts = snakemake.params.options
ds = load_dataset(snakemake.input[0])
t0 = time.perf_counter()
dgm = h1_diagram(normalized_distance_matrix(ds.X), max_edge=opts.get("max_edge", 0.5),
                 min_persistence=opts.get("min_persistence", 0.1))
log.info("%d H1 bars in %.2f s", len(dgm), time.perf_counter() - t0)
save_diagram(dgm, snakemake.output[0])
