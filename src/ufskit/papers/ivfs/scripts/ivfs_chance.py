"""Rule ivfs_chance: one dataset's pool of random feature orders, evaluated with the Table 1 methods' metric
options, from which Table 1 takes Random's best of G per method (ufskit.chance; one job, every draw batched)."""

from ufskit.chance import chance_runs, draws_needed
from ufskit.data import load_dataset
from ufskit.metrics import load_diagram
from ufskit.papers.ivfs.report import table1_shapes
from ufskit.runlog import start
from ufskit.runs import run_batched

log = start(snakemake.log[0], snakemake.threads)
w, p = snakemake.wildcards, snakemake.params.chance
ds = load_dataset(snakemake.input.data)
diagram = load_diagram(snakemake.input.diagram) if "diagram" in snakemake.input.keys() else None
shapes = table1_shapes(p["methods"], p["protocol"], p["reps"], ds.X.shape[0])
runs = chance_runs(draws_needed(shapes.values()), p["spec"], seed=p["seed"], metrics=p["metrics"])
log.info("best of G per method (G, reps): %s; %d random orders", shapes, len(runs))
frame = run_batched(ds.X, ds.y, runs, snakemake.params.n_features, p["metrics"], n_classes=ds.n_classes,
                    dataset=w.dataset, method="Random", diagram=diagram)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%d metric rows written", len(frame))
