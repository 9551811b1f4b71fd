"""Rule ils_cluster_study: Fig. 2 of the ILS paper for one number of clusters (people drawn per repetition)."""

from ufskit.data import load_dataset
from ufskit.experiments import feature_counts
from ufskit.papers.ils import cluster_subsets_study
from ufskit.runlog import start

log = start(snakemake.log[0], snakemake.threads)
ds = load_dataset(snakemake.input[0])
kmeans = snakemake.params.kmeans
n_clusters = int(snakemake.wildcards.n_clusters)
frame = cluster_subsets_study(
    ds.X, ds.y, snakemake.params.methods, n_clusters=n_clusters,
    reps=kmeans.get("n_runs", 10),  # the paper repeats draw + selection + K-means 20 times
    counts=feature_counts(snakemake.params.n_features, ds.X.shape[1]),
    n_init=kmeans.get("n_init", 10), nmi_average=kmeans.get("nmi_average", "sqrt"), seed=snakemake.params.seed,
)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%d clusters: %d rows", n_clusters, len(frame))
