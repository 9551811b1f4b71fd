# The toy paper's rules (its package: __init__.py): Table 1, Fig. 1's points and the claim from its experiment's
# summary, then Fig. 1 from its points.


rule toy_table1:
    input:
        summary=lambda w: f"results/{role_experiment(w.report, 'toy', 'table1')}/summary.csv",
    output:
        table="results/{report}/table1.csv",
        html=paper_report("results/{report}/table1.html", "toy", "toy_table1"),
        md="results/{report}/table1.md",
        curve="results/{report}/curve.csv",
        claims="results/{report}/claims.csv",
        claims_md="results/{report}/claims.md",
    log:
        "logs/toy/{report}/table1.log",
    wildcard_constraints:
        report=exactly(paper_reports("toy")),
    conda:
        ENV
    params:
        run=report_run,
    script:
        "scripts/toy_table1.py"


rule toy_fig1:
    input:
        curve="results/{report}/curve.csv",
    output:
        png=paper_report("results/{report}/fig1.png", "toy", "toy_fig1"),
    log:
        "logs/toy/{report}/fig1.log",
    wildcard_constraints:
        report=exactly(paper_reports("toy")),
    conda:
        ENV
    params:
        run=report_run,
    script:
        "scripts/toy_fig1.py"


PAPER_TARGETS["toy"] = lambda report: [
    f"results/{report}/{f}" for f in ("table1.csv", "table1.html", "curve.csv", "fig1.png", "claims.csv", "claims.md")
]
