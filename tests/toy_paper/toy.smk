# The toy paper's rules (tests/toy_paper/toy_paper.py): Table 1 and the claim from its experiment's summary.

from pathlib import Path

import pandas as pd

import toy_paper as TOY


def toy_summary(wildcards):
    """The summary of the report folder's experiment with role table1."""
    names = [n for n in report_experiments(wildcards.report) if config["experiments"][n].get("role") == "table1"]
    if len(names) != 1:
        raise ValueError(f"report {wildcards.report!r} needs one toy experiment with role table1, got {names}.")
    return f"results/{names[0]}/summary.csv"


rule toy_table1:
    input:
        toy_summary,
    output:
        table="results/{report}/table1.csv",
        claims="results/{report}/claims.csv",
        claims_md="results/{report}/claims.md",
    wildcard_constraints:
        report=exactly(paper_reports("toy")),
    run:
        table = TOY.table1(pd.read_csv(input[0]))
        table.to_csv(output.table, index=False)
        verdicts = TOY.claims(table)
        verdicts.to_csv(output.claims, index=False)
        Path(output.claims_md).write_text(TOY.claims_markdown(verdicts))


PAPER_TARGETS["toy"] = lambda report: [f"results/{report}/{f}" for f in ("table1.csv", "claims.csv", "claims.md")]
