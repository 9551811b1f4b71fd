# Input functions and targets of the added methods' statistics (paper_stats.smk).

from ufskit.papers import extra_labels, paper_methods, titles

# paper -> (its main table, the values per dataset and method the tests rank)
PAPER_MAIN_TABLES = {
    "ils": ("Fig. 1", "1-NN accuracy, mean over the counts, best setting"),
    "kudfs": ("Table 1", "K-means ACC, best over settings and counts 1..d"),
    "nrfs": ("Fig. 5", "K-means NMI, mean over the counts"),
    "ivfs": ("Table 1", "best over the Table 1 settings and counts; time: the fixed setting"),
}


def report_paper(report):
    """The paper of report folder `report` (that of its first experiment; a folder holds one paper's)."""
    return config["experiments"][report_experiments(report)[0]]["paper"]


def stats_reports():
    """Report folders in `run` of a paper with a main table whose experiments have added methods."""
    return sorted(
        {
            report_dir(n)
            for n in config["run"]
            if config["experiments"][n]["paper"] in PAPER_MAIN_TABLES
            and extra_labels(config["experiments"][n]["methods"])
        }
    )


def stats_table(wildcards):
    """The main table the statistics read (ILS: the summary of the Fig. 1 experiment)."""
    paper = report_paper(wildcards.report)
    if paper == "ils":
        return ils_report_input("uci", "summary")(wildcards)
    return f"results/{wildcards.report}/{'fig5' if paper == 'nrfs' else 'table1'}.csv"


def stats_methods(wildcards):
    """The main table's methods: the paper's and the added ones of every experiment of the report (no Random)."""
    methods = {}
    for name in report_experiments(wildcards.report):
        methods.update(paper_methods(config["experiments"][name]["methods"]))
    return methods


def stats_targets(report):
    return [f"results/{report}/stats_main.{ext}" for ext in ("csv", "md", "html")] + [f"results/{report}/cd_main.png"]


def stats_report(path):
    """`path` marked for the report, under the category of the folder's paper (as its tables, paper_report)."""
    return report(
        path,
        caption="../report/paper_stats.rst",
        category=lambda w: REPORT_CATEGORIES[report_paper(w.report)],
        subcategory=os.path.dirname(path),
    )


# every report folder with added methods builds its statistics with its paper's tables and figures
for _paper, _targets in list(PAPER_TARGETS.items()):
    if _paper in PAPER_MAIN_TABLES:
        PAPER_TARGETS[_paper] = lambda report, _targets=_targets: _targets(report) + (
            stats_targets(report) if report in stats_reports() else []
        )
