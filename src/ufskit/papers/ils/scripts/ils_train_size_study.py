"""Rule ils_train_size_study: Fig. 3 of the ILS paper for one number of training images per person."""

from ufskit.data import load_dataset
from ufskit.experiments import feature_counts
from ufskit.papers.ils import train_size_study
from ufskit.runlog import start

log = start(snakemake.log[0], snakemake.threads)
ds = load_dataset(snakemake.input[0])
n_train = int(snakemake.wildcards.n_train)
frame = train_size_study(
    ds.X, ds.y, snakemake.params.methods, n_train=n_train, n_splits=snakemake.params.n_splits,
    counts=feature_counts(snakemake.params.n_features, ds.X.shape[1]), seed=snakemake.params.seed,
)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%d training images per person: %d rows", n_train, len(frame))
