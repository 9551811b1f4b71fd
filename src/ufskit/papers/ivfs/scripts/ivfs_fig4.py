"""Rule ivfs_fig4: relative performance of IVFS-linf over k and n~/n (Fig. 4)."""

from ufskit.experiments import settings_by_slug
from ufskit.intermediates import read_csv
from ufskit.papers.ivfs.report import IVFS, draw_fig4, fig4_frame
from ufskit.plots import save_figure
from ufskit.runlog import start

log = start(snakemake.log[0])
protocol = snakemake.config.get("protocol", "full")  # a quick or smoke run says so in the title
c = snakemake.params.config
frame = fig4_frame(read_csv(snakemake.input.summary), settings_by_slug({"methods": c["methods"]}, IVFS))
frame.to_csv(snakemake.output.csv, index=False)
save_figure(draw_fig4(frame, protocol=protocol), snakemake.output.png, snakemake.output.pdf)
log.info("%d points", len(frame))
