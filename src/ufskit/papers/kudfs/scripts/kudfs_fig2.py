"""Rule kudfs_fig2: accuracy vs number of selected features per dataset (the paper's Fig. 2)."""

from ufskit.intermediates import read_csv
from ufskit.papers import kudfs
from ufskit.plots import save_figure
from ufskit.runlog import start

start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
curves = read_csv(snakemake.input.curves, dtype={"n_features": "Int64"})
published = kudfs.read_published(snakemake.input.published)
fig = kudfs.figure2(curves, published, kernel=snakemake.params.kernel, protocol=protocol)
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
