"""Rule nrfs_sampling: NRFS's noise removal (FDD) and density-preserving sampling on the synthetic data."""

import os

import numpy as np

from ufskit.data import atomic_path, load_dataset
from ufskit.runlog import start
from ufskit.runs import fit_selector

log = start(snakemake.log[0])
ds = load_dataset(snakemake.input[0])
nrfs, _ = fit_selector(snakemake.params.spec, ds.X, seed=snakemake.params.seed, n_classes=ds.n_classes)
tmp = atomic_path(snakemake.output[0])
with open(tmp, "wb") as fh:
    np.savez(fh, removed=nrfs.noisy_, representatives=nrfs.representatives_, fold=nrfs.fold_,
             noise_indices=np.asarray(ds.info["noise_indices"]))
os.replace(tmp, snakemake.output[0])
log.info("fold %s: %d representatives, %d removed", nrfs.fold_, nrfs.representatives_.size, nrfs.noisy_.size)
