"""Rule kudfs_chance: one dataset's pool of random feature orders at counts 1..d, evaluated with the metric options
of the method kernel-UDFS Table 1 takes from the experiment, from which Table 1 takes that method's Random best of G
(ufskit.chance; one job, every draw batched)."""

from ufskit.chance import chance_runs, draws_needed
from ufskit.data import load_dataset
from ufskit.runlog import start
from ufskit.runs import run_batched

RANDOM = {"selector": "Random", "params": {}}

log = start(snakemake.log[0], snakemake.threads)
w, p = snakemake.wildcards, snakemake.params.chance
ds = load_dataset(snakemake.input.data)
runs = chance_runs(draws_needed([p["shape"]]), RANDOM, seed=p["seed"], metrics=p["metrics"])
log.info("best of G (G, reps) = %s; %d random orders", p["shape"], len(runs))
frame = run_batched(ds.X, ds.y, runs, "all", p["metrics"], n_classes=ds.n_classes, dataset=w.dataset, method="Random")
frame.to_parquet(snakemake.output[0], index=False)
log.info("%d metric rows written", len(frame))
