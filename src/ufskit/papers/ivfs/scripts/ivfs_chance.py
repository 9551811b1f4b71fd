"""Rule ivfs_chance_shard: one shard of a dataset's pool of random feature orders (draws start..stop-1), evaluated
with the Table 1 methods' metric options; rule ivfs_chance concatenates the shards into the pool from which Table 1
takes Random's best of G per method (ufskit.chance; the shard's draws batched in one job)."""

from ufskit.chance import SEED_COLUMN, chance_runs
from ufskit.data import load_dataset
from ufskit.metrics import load_diagram
from ufskit.runlog import start
from ufskit.runs import run_batched

log = start(snakemake.log[0], snakemake.threads)
w, p = snakemake.wildcards, snakemake.params.chance
ds = load_dataset(snakemake.input.data)
diagram = load_diagram(snakemake.input.diagram) if "diagram" in snakemake.input.keys() else None
runs = chance_runs(range(*p["draws"]), p["spec"], seed=p["seed"], metrics=p["metrics"])
log.info("draws %d..%d of the pool of random orders", p["draws"][0], p["draws"][1] - 1)
frame = run_batched(ds.X, ds.y, runs, snakemake.params.n_features, p["metrics"], n_classes=ds.n_classes,
                    dataset=w.dataset, method="Random", diagram=diagram)
frame.assign(**{SEED_COLUMN: p["seed"]}).to_parquet(snakemake.output[0], index=False)
log.info("%d metric rows written", len(frame))
