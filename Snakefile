# Reproduction of four unsupervised feature selection papers (see README.md).
# Entry point: configfile, includes, and the default target.

from snakemake.utils import min_version

min_version("9.0")


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
include: "workflow/rules/ils.smk"
include: "workflow/rules/kudfs.smk"
include: "workflow/rules/nrfs.smk"
include: "workflow/rules/ivfs.smk"
include: "workflow/rules/benchmark.smk"
include: "workflow/rules/paper_stats.smk"  # after the papers: adds to their targets


# the rules files of the papers of config `paper_modules` (their PaperSpec.rules), after the built-in papers'
for _rules in EXTRA_PAPER_RULES:

    include: _rules


include: "workflow/rules/report.smk"


# Snakemake runs only the main Snakefile's handler: the failed jobs' own errors, one line each, where the run ends
onerror:
    print(run_end.failure_summary(failed_jobs()), file=sys.stderr)


rule all:
    default_target: True
    input:
        final_outputs(),
