"""Rule kudfs_fig1: distance ratio vs number of kernel features (the paper's Fig. 1), added methods beside."""

from ufskit.intermediates import read_parquet
from ufskit.papers import kudfs
from ufskit.plots import save_figure
from ufskit.runlog import start

log = start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
curves = dict(zip(snakemake.params.labels, (read_parquet(p) for p in snakemake.input.ratios)))
added = dict(zip(snakemake.params.added, (read_parquet(p) for p in snakemake.input.added)))  # marked not in the paper
fig = kudfs.figure1(curves, snakemake.params.dataset, kernel=snakemake.params.kernel, added=added, protocol=protocol)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
log.info("Fig. 1 with %d kernel-UDFS setting(s) and %d added curve(s)", len(curves), len(added))
