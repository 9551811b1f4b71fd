"""Rule ivfs_select: every setting and repetition of one shard of a method on one dataset, as one bundle."""

from ufskit.data import load_dataset
from ufskit.papers.ivfs import fit_runs, save_bundle
from ufskit.readings import seed_identity
from ufskit.runlog import start
from ufskit.seeds import derive_seed

log = start(snakemake.log[0], snakemake.threads)
w = snakemake.wildcards
ds = load_dataset(snakemake.input[0])
p = snakemake.params
log.info("fitting %d settings x %d reps of %s (shard %s) on %s (%d x %d)", len(p.settings), p.reps, p.selector,
         w.shard, w.dataset, *ds.X.shape)
bundle = fit_runs(ds.X, selector=p.selector, settings=p.settings, reps=p.reps, n_classes=ds.n_classes,
                  seed_of=lambda slug, rep: derive_seed(p.seed, seed_identity(w.experiment), w.dataset, w.method, slug, rep))
log.info("fit seconds: total %.2f, max %.2f", bundle["seconds"].sum(), bundle["seconds"].max())
save_bundle(bundle, snakemake.output[0])
