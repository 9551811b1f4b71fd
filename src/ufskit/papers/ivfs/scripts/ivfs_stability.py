"""Rule ivfs_stability: Table 2's bootstrap differences of every method (its fixed setting) on one dataset."""

import pandas as pd

from ufskit.data import load_dataset
from ufskit.experiments import settings_by_slug
from ufskit.papers.ivfs import bootstrap_differences, fixed_slug
from ufskit.readings import seed_identity
from ufskit.runlog import start
from ufskit.seeds import derive_seed

log = start(snakemake.log[0], snakemake.threads)
w = snakemake.wildcards
p = snakemake.params
ds = load_dataset(snakemake.input[0])
rows = []
for label, spec in p.methods.items():
    slug = fixed_slug(p.methods, p.protocol, label)
    diffs = bootstrap_differences(
        ds.X, selector=spec["selector"], params=settings_by_slug({"methods": p.methods}, label)[slug],
        n_selected=min(p.protocol["stability_features"], ds.X.shape[1]), n_reps=p.protocol["stability_reps"],
        n_classes=ds.n_classes, seed=derive_seed(p.seed, seed_identity(w.experiment), w.dataset, label, "stability"))
    log.info("%s (%s): %s", label, slug, diffs)
    rows += [{"dataset": w.dataset, "method": label, "params": slug, "rep": r, "differences": v}
             for r, v in enumerate(diffs)]
pd.DataFrame(rows).to_parquet(snakemake.output[0], index=False)
