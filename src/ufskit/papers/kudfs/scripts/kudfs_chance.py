"""Rule kudfs_chance_shard: one shard of a dataset's pool of random feature orders (draws start..stop-1) at counts
1..d, evaluated with the metric options of the method kernel-UDFS Table 1 takes from the experiment; rule
kudfs_chance concatenates the shards into the pool from which Table 1 takes that method's Random best of G
(ufskit.chance; the shard's draws batched in one job)."""

from ufskit.chance import SEED_COLUMN, chance_runs
from ufskit.data import load_dataset
from ufskit.runlog import start
from ufskit.runs import run_batched

RANDOM = {"selector": "Random", "params": {}}

log = start(snakemake.log[0], snakemake.threads)
w, p = snakemake.wildcards, snakemake.params.chance
ds = load_dataset(snakemake.input.data)
runs = chance_runs(range(*p["draws"]), RANDOM, seed=p["seed"], metrics=p["metrics"])
log.info("draws %d..%d of the pool of random orders", p["draws"][0], p["draws"][1] - 1)
frame = run_batched(ds.X, ds.y, runs, "all", p["metrics"], n_classes=ds.n_classes, dataset=w.dataset, method="Random")
frame.assign(**{SEED_COLUMN: p["seed"]}).to_parquet(snakemake.output[0], index=False)
log.info("%d metric rows written", len(frame))
