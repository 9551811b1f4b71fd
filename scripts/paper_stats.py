"""Rule paper_stats: Friedman + Nemenyi and the CD diagrams over a paper's datasets, on its main table's values,
when the run added methods to the paper (config extra_methods)."""

from ufskit.intermediates import read_csv
from ufskit.papers import EXTRA_MARK, EXTRA_NOTE, benchmark_stats, extra_labels, ils, kudfs, nrfs
from ufskit.papers.ivfs import report as ivfs_report
from ufskit.plots import save_figure
from ufskit.runlog import start
from ufskit.tables import write_markdown

VALUES = {"ils": ils.fig1_values, "kudfs": kudfs.table1_values, "nrfs": nrfs.fig5_values,
          "ivfs": ivfs_report.table1_values}  # paper -> its main table's values per dataset, method and metric
log = start(snakemake.log[0])
p = snakemake.params
values = VALUES[p.paper](read_csv(snakemake.input.table))
values = values[values["method"].isin(p.methods)]
added = set(extra_labels(p.methods))
values["method"] = values["method"].map(lambda m: m + EXTRA_MARK if m in added else m)  # "not in the paper"
table, results = benchmark_stats.paper_table_stats(values)
table.to_csv(snakemake.output.csv, index=False, float_format="%.6g")
title = f"{p.title}, {p.table} with added methods"
write_markdown(benchmark_stats.stats_markdown(results, heading=title, figure="cd_main.png",
                                             values=f"the values of {p.table} on each dataset ({p.values})")
               + f"\n{EXTRA_NOTE}\n", snakemake.output.md, snakemake.output.html)
save_figure(benchmark_stats.cd_figure(results, heading=title), snakemake.output.png, snakemake.output.pdf)
for metric, res in results.items():
    log.info("%s: %d methods, %d datasets, Friedman p %.3g", metric, res["n_methods"], res["n_datasets"], res["p"])
