"""Rules kudfs_kernel_pca / kudfs_kernel_kmeans: the kernel-UDFS paper's nonlinear competitors on one dataset."""

from ufskit.data import load_dataset
from ufskit.experiments import feature_counts
from ufskit.papers import kudfs
from ufskit.runlog import start

log = start(snakemake.log[0], snakemake.threads)
ds = load_dataset(snakemake.input.data)
p = snakemake.params
n, d = ds.X.shape
if snakemake.rule == "kudfs_kernel_pca":
    # the kernel features' counts, limited to the original dimension d as in the paper (1..d)
    counts = [c for c in feature_counts(p.n_features, n) if c <= d]
    frame = kudfs.kernel_pca_accuracy(ds.X, ds.y, counts, sigma=p.sigma, kmeans=p.kmeans, seed=p.seed)
else:
    frame = kudfs.kernel_kmeans_accuracy(ds.X, ds.y, sigma=p.sigma, kmeans=p.kmeans, seed=p.seed)
frame.insert(0, "dataset", snakemake.wildcards.dataset)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%s on %s (%d x %d, sigma=%g): %d rows", snakemake.rule, snakemake.wildcards.dataset, n, d, p.sigma,
         len(frame))
