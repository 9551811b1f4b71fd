"""Rule nrfs_kmeans_all: Fig. 5's reference line, K-means NMI on all features of one dataset."""

from ufskit.data import load_dataset
from ufskit.papers.nrfs import kmeans_all_features
from ufskit.runlog import start

log = start(snakemake.log[0], snakemake.threads)
ds = load_dataset(snakemake.input[0])
frame = kmeans_all_features(ds.X, ds.y, runs=snakemake.params.runs, kmeans=snakemake.params.kmeans,
                            seed=snakemake.params.seed)
frame.insert(0, "dataset", snakemake.wildcards.dataset)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%s: mean NMI %.4f over %d runs", snakemake.wildcards.dataset, frame["nmi"].mean(), len(frame))
