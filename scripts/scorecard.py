"""Rule scorecard: the published numbers and claims of the registered papers against this run (CSV and markdown)."""

from pathlib import Path

from ufskit import scorecard as S
from ufskit.papers import read_published, register_folders
from ufskit.runlog import start
from ufskit.tables import write_markdown

log = start(snakemake.log[0])
p = snakemake.params
register_folders(p.paper_folders)  # the papers of config `paper_folders`, after the built-in ones
published = {Path(path).name: read_published(path) for path in snakemake.input.published}
runs = {paper: [S.load_report(e["report"], e["files"], e["summaries"], e["reading"], e["base"]) for e in entries]
        for paper, entries in p.sources.items()}
groups = S.read_groups(snakemake.input.groups)
card = S.scorecard(published, S.read_reference(snakemake.input.claims), runs, excluded=dict(p.excluded),
                   tolerances=dict(p.tolerances), protocol=p.protocol, beside=dict(p.beside), groups=groups,
                   reading_order=list(p.reading_order))
card.to_csv(snakemake.output.csv, index=False)
write_markdown(S.scorecard_markdown(card, excluded=dict(p.excluded), tolerances=dict(p.tolerances), groups=groups),
               snakemake.output.md, snakemake.output.html)
log.info("%d rows: %s", len(card), card.groupby("kind")["outcome"].value_counts().to_dict())
