"""Rule evaluate_selection: every metric of the experiment at every feature count, as a tidy table."""

from ufskit.data import load_dataset
from ufskit.evaluation import evaluate_selection
from ufskit.experiments import feature_counts
from ufskit.metrics import load_diagram
from ufskit.runlog import start
from ufskit.selection_io import load_selection

log = start(snakemake.log[0], snakemake.threads)
ds = load_dataset(snakemake.input.data)
sel = load_selection(snakemake.input.selection)
width = ds.X.shape[1] if sel.space is None else sel.space.shape[1]
counts = feature_counts(snakemake.params.n_features, width)
diagram = load_diagram(snakemake.input.diagram) if "diagram" in snakemake.input.keys() else None
frame = evaluate_selection(ds.X, ds.y, sel, counts, snakemake.params.metrics,
                           seed=snakemake.params.seed, full_diagram=diagram)
w = snakemake.wildcards
frame.insert(0, "rep", int(w.rep))
frame.insert(0, "params", w.params)
frame.insert(0, "method", w.method)
frame.insert(0, "dataset", w.dataset)
frame.to_parquet(snakemake.output[0], index=False)
log.info("%d metric rows written", len(frame))
