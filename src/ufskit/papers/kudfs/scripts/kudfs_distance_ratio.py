"""Rule kudfs_distance_ratio: Fig. 1's distance-ratio curves of one selection (kernel UDFS: of its kernel features; a
method added by extra_methods that ranks the original features: of those)."""

from ufskit.data import load_dataset
from ufskit.papers import kudfs
from ufskit.runlog import start
from ufskit.selection_io import load_selection

log = start(snakemake.log[0], snakemake.threads)
ds = load_dataset(snakemake.input.data)
sel = load_selection(snakemake.input.selection)
space = ds.X if sel.space is None else sel.space  # the matrix whose columns the selection ranks
curves = kudfs.distance_ratio_curves(space, ds.y, sel.order)
curves.to_parquet(snakemake.output[0], index=False)
log.info("distance ratio for 1..%d %s features", len(curves), "original" if sel.space is None else "kernel")
