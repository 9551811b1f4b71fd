"""Rule prepare_dataset: raw files -> Dataset -> preprocessing chain -> npz + JSON summary."""

from ufskit.data import save_dataset
from ufskit.loaders import load
from ufskit.preprocess import apply_chain
from ufskit.runlog import start

log = start(snakemake.log[0])
name = snakemake.wildcards.dataset
ds = load(name, snakemake.params.entry, "resources/raw", seed=snakemake.params.seed)
log.info("%s loaded: %d x %d, %d classes", name, *ds.X.shape, ds.n_classes)
ds = apply_chain(ds, snakemake.params.steps)
ds.info.update(dataset=name, chain=snakemake.wildcards.chain)
log.info("after %s: %d x %d", snakemake.params.steps, *ds.X.shape)
save_dataset(ds, snakemake.output.npz, snakemake.output.summary)
