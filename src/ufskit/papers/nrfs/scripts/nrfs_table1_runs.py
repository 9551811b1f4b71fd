"""Rule nrfs_table1_runs: Table I's 30 runs of one method on the synthetic data (all / normal instances), from the
selections its batched job kept (rule nrfs_synthetic_batch)."""

from ufskit.data import load_dataset
from ufskit.experiments import resolve_params
from ufskit.papers.nrfs import table1_runs
from ufskit.runlog import start
from ufskit.selection_io import load_selection

log = start(snakemake.log[0], snakemake.threads)
ds = load_dataset(snakemake.input.data)
(count,) = snakemake.params.n_features  # Table I evaluates one number of features
spec = snakemake.params.spec
if spec is not None:
    spec = {**spec, "params": resolve_params(spec["params"], n_classes=ds.n_classes)}
selections = [load_selection(p).features(count) for p in snakemake.params.selections]
frame = table1_runs(ds.X, ds.y, ds.info["noise_indices"], snakemake.wildcards.method, count=count, spec=spec,
                    selections=selections, total_runs=snakemake.params.total_runs, kmeans=snakemake.params.kmeans,
                    seed=snakemake.params.seed)
frame.insert(0, "dataset", snakemake.wildcards.dataset)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%s on %s: %d runs, mean NMI %s", snakemake.wildcards.method, snakemake.wildcards.dataset, len(frame),
         frame.groupby("variant")["nmi"].mean().round(4).to_dict())
