"""Rule nrfs_sampling: NRFS's noise removal (FDD) and density-preserving sampling on the synthetic data."""

import os

import numpy as np

from ufskit.data import atomic_path, load_dataset
from ufskit.experiments import resolve_params
from ufskit.runlog import start
from ufskit.selectors import make_selector

log = start(snakemake.log[0])
ds = load_dataset(snakemake.input[0])
spec = snakemake.params.spec
nrfs = make_selector(spec["selector"], **resolve_params(spec["params"], n_classes=ds.n_classes))
nrfs.set_params(random_state=snakemake.params.seed).fit(ds.X)
tmp = atomic_path(snakemake.output[0])
with open(tmp, "wb") as fh:
    np.savez(fh, removed=nrfs.noisy_, representatives=nrfs.representatives_, fold=nrfs.fold_,
             noise_indices=np.asarray(ds.info["noise_indices"]))
os.replace(tmp, snakemake.output[0])
log.info("fold %s: %d representatives, %d removed", nrfs.fold_, nrfs.representatives_.size, nrfs.noisy_.size)
