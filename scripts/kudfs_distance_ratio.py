"""Rule kudfs_distance_ratio: Fig. 1's distance-ratio curves of one kernel-UDFS selection."""

from ufskit.data import load_dataset
from ufskit.papers import kudfs
from ufskit.runlog import start
from ufskit.selection_io import load_selection

log = start(snakemake.log[0], snakemake.threads)
ds = load_dataset(snakemake.input.data)
sel = load_selection(snakemake.input.selection)
if sel.space is None:
    raise ValueError(f"{snakemake.input.selection} holds no kernel features; the distance ratio needs kernel UDFS.")
curves = kudfs.distance_ratio_curves(sel.space, ds.y, sel.order)
curves.to_parquet(snakemake.output[0], index=False)
log.info("distance ratio for 1..%d kernel features", len(curves))
