# Methods tuned with the labels over a grid (experiments with `paper: tuned`), each against Random's best of G
# random feature orders (ufskit.papers.tuned, ufskit.chance); outputs go to results/<report_dir>/tuned.*.


include: "common.smk"


rule tuned_vs_chance:
    input:
        tuned_metric_tables,
    output:
        csv="results/{report}/tuned.csv",
        md="results/{report}/tuned.md",
        html=paper_report("results/{report}/tuned.html", "tuned", "tuned_vs_chance"),
    log:
        "logs/tuned/{report}/tuned.log",
    wildcard_constraints:
        report=TUNED_REPORT,
    conda:
        ENV
    params:
        run=report_run,
        methods=tuned_methods,
    script:
        "scripts/tuned_vs_chance.py"
