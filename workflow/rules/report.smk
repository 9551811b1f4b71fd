# The scorecard: every published number and claim of the registered papers beside this run's result
# (ufskit.scorecard). Its input functions live in report_common.smk.


rule scorecard:
    input:
        published=SCORECARD_PUBLISHED,
        claims=SCORECARD_CLAIMS,
        groups=SCORECARD_GROUPS,
        results=scorecard_inputs,
    output:
        csv="results/scorecard.csv",
        md="results/scorecard.md",
        html=report("results/scorecard.html", caption="../report/scorecard.rst", category="Scorecard"),
    log:
        "logs/scorecard.log",
    conda:
        ENV
    params:
        sources=lambda w: scorecard_sources(),
        excluded=EXCLUDED,
        tolerances=config["scorecard"]["tolerances"],
        run=CAPTIONS.run_facts(config, config["run"]),
        protocol=config["protocol"],
        beside=scorecard_beside(),
        reading_order=list(config.get("readings") or {}),
        paper_folders=config["paper_folders"],
    script:
        "../../scripts/scorecard.py"
