# Reproduction of unsupervised feature selection papers (see README.md).
# Entry point: configfile, includes, and the default target.

from snakemake.utils import min_version

from ufskit.configio import load_yaml

min_version("9.0")


# Read strictly first: a syntax error is then named by file and line (Snakemake's message names neither).
load_yaml(f"{workflow.basedir}/config/config.yaml")


# Resolved against this file's folder, so the workflow also runs with --directory elsewhere.
configfile: f"{workflow.basedir}/config/config.yaml"


# `snakemake --report results/report.html` (or .zip): every paper table and figure with its caption.
report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/report_common.smk"  # paper_report(), used in the paper rules' outputs
include: "workflow/rules/data.smk"
include: "workflow/rules/select.smk"
include: "workflow/rules/evaluate.smk"
include: "workflow/rules/tables.smk"


# each registered paper's rules.smk (src/ufskit/papers/<name>/, then the folders of config `paper_folders`)
for _rules in PAPER_RULES:

    include: _rules


include: "workflow/rules/paper_stats.smk"  # after the papers: adds to their targets
include: "workflow/rules/report.smk"


# Snakemake runs only the main Snakefile's handler: the failed jobs' own errors, one line each, where the run ends
onerror:
    print(run_end.failure_summary(failed_jobs()), file=sys.stderr)


rule all:
    default_target: True
    input:
        final_outputs(),
