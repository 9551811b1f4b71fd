# Input functions and targets of the tuned-versus-chance rules (rules.smk).


def tuned_metric_tables(wildcards):
    """The metrics tables of the `paper: tuned` experiments in `run` whose report folder is `report`."""
    names = [n for n in report_experiments(wildcards.report) if config["experiments"][n]["paper"] == "tuned"]
    if not names:
        raise ValueError(f"report {wildcards.report!r} has no tuned experiment in `run`.")
    return [f"results/{name}/metrics.parquet" for name in names]


def tuned_methods(wildcards):
    """The methods (config entries) of the tuned experiments of report folder `report`."""
    methods = {}
    for name in report_experiments(wildcards.report):
        if config["experiments"][name]["paper"] == "tuned":
            methods.update(config["experiments"][name]["methods"])
    return methods


def tuned_targets(report):
    return [f"results/{report}/tuned.{ext}" for ext in ("csv", "md", "html")]


PAPER_TARGETS["tuned"] = tuned_targets

TUNED_REPORT = exactly(paper_reports("tuned"))
