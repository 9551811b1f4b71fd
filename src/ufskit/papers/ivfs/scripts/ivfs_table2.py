"""Rule ivfs_table2: bootstrap stability (Table 2) beside the published values."""

import pandas as pd

from ufskit.intermediates import read_parquet
from ufskit.papers import with_in_paper
from ufskit.papers.ivfs.report import read_published, table2, table2_markdown
from ufskit.runlog import start
from ufskit.tables import write_markdown

log = start(snakemake.log[0])
c = snakemake.params.config
frame = pd.concat([read_parquet(p) for p in snakemake.input.stability], ignore_index=True)
table = with_in_paper(table2(frame, datasets=c["datasets"], excluded=c["excluded"], methods=list(c["methods"]),
               published=read_published(snakemake.input.published)), c["methods"])
table.to_csv(snakemake.output.csv, index=False)
write_markdown(f"# IVFS Table 2 (experiment {c['experiment']})\n\n"
               + table2_markdown(table, c["protocol"]["stability_features"]), snakemake.output.md, snakemake.output.html)
log.info("%d rows", len(table))
