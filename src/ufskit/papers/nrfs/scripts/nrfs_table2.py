"""Rule nrfs_table2: the paper's datasets as prepared, beside Table II's numbers."""

from ufskit.intermediates import read_json
from ufskit.papers.nrfs import read_published, table2_markdown
from ufskit.runlog import start
from ufskit.tables import write_markdown

start(snakemake.log[0])
summaries = {name: read_json(path)
             for name, path in zip(snakemake.params.names, snakemake.input.summaries)}
write_markdown(table2_markdown(summaries, read_published(snakemake.input.published)), snakemake.output.md, snakemake.output.html)
