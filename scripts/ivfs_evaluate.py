"""Rule ivfs_evaluate: knn, distance norms and (Table 1 settings) persistence of every run of a bundle."""

import time

import numpy as np

from ufskit.data import load_dataset
from ufskit.experiments import feature_counts
from ufskit.metrics import load_diagram
from ufskit.papers.ivfs import evaluate_bundle, load_bundle, table_slugs
from ufskit.readings import seed_identity
from ufskit.runlog import start
from ufskit.seeds import derive_seed

log = start(snakemake.log[0], snakemake.threads)
w = snakemake.wildcards
p = snakemake.params
ds = load_dataset(snakemake.input.data)
bundle = load_bundle(snakemake.input.bundle)
counts = feature_counts(p.n_features, ds.X.shape[1])
persist = set(table_slugs(p.methods, p.protocol, w.method, ds.X.shape[0]))
t0 = time.perf_counter()
frame = evaluate_bundle(
    ds.X, ds.y, bundle, counts, p.metrics,
    seed_of=lambda slug, rep: derive_seed(p.seed, seed_identity(w.experiment), w.dataset, w.method, slug, rep),
    persist=persist, persistence_counts=p.protocol["persistence_counts"],
    full_diagram=load_diagram(snakemake.input.diagram),
    literal_min_persistence=p.protocol["literal_min_persistence"],
)
frame.insert(0, "method", w.method)
frame.insert(0, "dataset", w.dataset)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%d runs (%d with persistence), %d rows in %.1f s", len(bundle["slugs"]),
         int(np.isin(bundle["slugs"], list(persist)).sum()), len(frame), time.perf_counter() - t0)
