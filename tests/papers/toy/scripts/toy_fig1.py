"""Rule toy_fig1: the toy paper's Fig. 1 (K-means accuracy against the number of features) from its points."""

import pandas as pd

from ufskit.papers import paper_package
from ufskit.plots import save_figure
from ufskit.runlog import start

log = start(snakemake.log[0])
paper = paper_package(__file__)  # this folder's package, built in (ufskit.papers.toy) or from paper_folders (toy)
curve = pd.read_csv(snakemake.input.curve)
save_figure(paper.figure1(curve, protocol=snakemake.config.get("protocol", "full")), snakemake.output.png)
log.info("Fig. 1: %d points", len(curve))
