# A user's selector in a paper's protocol (config extra_methods, docs/own-selector.md): the Friedman and Nemenyi
# tests and the critical-difference diagrams over the paper's datasets, on the values of its main table (the
# paper's methods and the added ones), for every report folder of the run whose experiments have added methods.


include: "paper_stats_common.smk"


rule paper_stats:
    input:
        table=stats_table,
    output:
        csv="results/{report}/stats_main.csv",
        md="results/{report}/stats_main.md",
        html=stats_report("results/{report}/stats_main.html"),
        png=stats_report("results/{report}/cd_main.png"),
        pdf="results/{report}/cd_main.pdf",
    log:
        "logs/paper_stats/{report}.log",
    wildcard_constraints:
        report=exactly(stats_reports()),
    conda:
        ENV
    params:
        run=report_run,
        paper=lambda w: report_paper(w.report),
        title=lambda w: titles()[report_paper(w.report)],
        table=lambda w: PAPER_MAIN_TABLES[report_paper(w.report)][0],
        values=lambda w: PAPER_MAIN_TABLES[report_paper(w.report)][1],
        methods=stats_methods,
    script:
        "../../scripts/paper_stats.py"
