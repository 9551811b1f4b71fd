"""Rule ivfs_seed_correlation: how much IVFS's feature scores agree between seeds, per dataset and k (Table 2's
setting)."""

import pandas as pd

from ufskit.data import load_dataset
from ufskit.papers.ivfs.diagnostics import seed_agreement, seed_markdown
from ufskit.runlog import start
from ufskit.tables import write_markdown

log = start(snakemake.log[0], snakemake.threads)
frames = []
for path, run in zip(snakemake.input.data, snakemake.params.plan):
    ds = load_dataset(path)
    top = min(snakemake.params.top, ds.X.shape[1])
    frame = seed_agreement(ds.X, run["params"], run["ks"], run["seeds"], n_classes=ds.n_classes, top=top)
    frames.append(frame.assign(dataset=run["dataset"], method=run["method"], params=run["group"]))
    log.info("%s %s: Spearman %s", run["dataset"], run["method"], frame["spearman_mean"].round(3).tolist())
# no IVFS method in the experiment: an empty table with the columns
table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["dataset", "method", "params"])
table = table[["dataset", "method", "params", *table.columns.drop(["dataset", "method", "params"])]]
table.to_csv(snakemake.output.csv, index=False)
write_markdown(seed_markdown(table), snakemake.output.md, snakemake.output.html)
