"""Rule ivfs_curve_figure: Fig. 2 (L2 norm) or Fig. 3 (bottleneck) against the number of selected features."""

import pandas as pd

from ufskit.intermediates import read_csv, read_json, read_parquet
from ufskit.papers import with_in_paper
from ufskit.papers.benchmark_stats import random_band
from ufskit.papers.ivfs.report import IVFS, curves, draw_curves, read_published
from ufskit.plots import save_figure
from ufskit.runlog import start

FIGURES = {  # figure -> (metric, published column, y label, title)
    "fig2": ("L2", "L2", "||D - D_F||_2", "Fig. 2: L2 norm of D - D_F vs. number of features"),
    "fig3": ("winf", "winf", "bottleneck distance w_inf", "Fig. 3: bottleneck distance of H1 diagrams vs. number of features"),
}
log = start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
c = snakemake.params.config
metric, column, ylabel, title = FIGURES[snakemake.wildcards.figure]
info = {s["dataset"]: s for s in (read_json(path) for path in snakemake.input.info)}
frame = with_in_paper(curves(read_csv(snakemake.input.summary), metric, info=info, methods=c["methods"],
                             protocol=c["protocol"]), c["methods"])
frame.to_csv(snakemake.output.csv, index=False)
pub = read_published(snakemake.input.published)
reference = pub[pub["method"] == IVFS].set_index("dataset")[column].to_dict()
runs = read_parquet(snakemake.input.metrics, columns=["dataset", "method", "n_features", "metric", "value"])
runs = runs[runs["metric"] == metric]
band = pd.concat([random_band(runs, label) for label in c["reference"]], ignore_index=True) if c["reference"] else None
fig = draw_curves(frame, ylabel=ylabel, title=title, reference=reference, band=band, protocol=protocol)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
log.info("%d curve points", len(frame))
