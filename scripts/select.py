"""Rule select_features: fit one selector on one prepared dataset and store its full ranking."""

import sys
import time

from ufskit.data import load_dataset
from ufskit.experiments import feature_counts, resolve_params
from ufskit.runlog import start
from ufskit.selection_io import Selection, save_selection
from ufskit.selectors import make_selector
from ufskit.selectors.plugins import fitted_ranking

sys.path[:0] = snakemake.config.get("python_path", [])  # user selectors named by import path
log = start(snakemake.log[0], snakemake.threads)
spec = snakemake.params.spec
ds = load_dataset(snakemake.input[0])
params = resolve_params(spec["params"], n_classes=ds.n_classes, n_samples=ds.X.shape[0])
selector = make_selector(spec["selector"], **params)
if "random_state" in selector.get_params():
    selector.set_params(random_state=snakemake.params.seed)
log.info("fitting %s%s on %s (%d x %d)", spec["selector"], params, snakemake.wildcards.dataset, *ds.X.shape)
t0 = time.perf_counter()
selector.fit(ds.X)
seconds = time.perf_counter() - t0
log.info("fit took %.3f s", seconds)
order, scores = fitted_ranking(selector, ds.X.shape[1])  # any selector of the contract (README)
# selectors whose choice depends on the count (IterativeLS-2) give one subset per count;
# kernel UDFS ranks kernel features, so the matrix of those features is stored with the ranking
counts = feature_counts(snakemake.params.n_features, scores.size)
subsets = selector.subsets(counts) if hasattr(selector, "subsets") else {}
space = selector.kernel_features(ds.X) if hasattr(selector, "kernel_features") else None
save_selection(
    Selection(order=order, scores=scores, seconds=seconds,
              params={**selector.get_params(), "selector": spec["selector"]}, subsets=subsets, space=space),
    snakemake.output[0],
)
