"""Rule evaluate_selection: every metric of the experiment at every feature count, as a tidy table."""

from ufskit.data import load_dataset
from ufskit.experiments import counts_explained
from ufskit.metrics import load_diagram
from ufskit.runlog import start
from ufskit.runs import evaluate_run
from ufskit.selection_io import load_selection

log = start(snakemake.log[0], snakemake.threads)
w = snakemake.wildcards
ds = load_dataset(snakemake.input.data)
diagram = load_diagram(snakemake.input.diagram) if "diagram" in snakemake.input.keys() else None
with counts_explained(ds.info):  # a count above the prepared width names the columns preprocessing dropped
    frame = evaluate_run(ds.X, ds.y, load_selection(snakemake.input.selection), snakemake.params.n_features,
                         snakemake.params.metrics, snakemake.params.seed, dataset=w.dataset, method=w.method,
                         params=w.params, rep=int(w.rep), diagram=diagram)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%d metric rows written", len(frame))
