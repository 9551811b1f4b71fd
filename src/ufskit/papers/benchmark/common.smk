# Input functions, targets and start-up checks of the cross-paper benchmark's rules (rules.smk).


def benchmark_experiments(report):
    """The benchmark experiments in `run` that feed report folder `report` (one per dataset family)."""
    names = [n for n in report_experiments(report) if config["experiments"][n]["paper"] == "benchmark"]
    if not names:
        raise ValueError(f"report {report!r} has no benchmark experiment in `run`.")
    return names


def benchmark_metric_tables(wildcards):
    return [f"results/{name}/metrics.parquet" for name in benchmark_experiments(wildcards.report)]


def benchmark_params(wildcards):
    """The families' config entries and the excluded datasets (reported as not obtained, never dropped)."""
    names = benchmark_experiments(wildcards.report)
    return {"experiments": {n: config["experiments"][n] for n in names}, "excluded": EXCLUDED}


def benchmark_targets(report):
    files = [
        "summary.csv",
        "summary.md",
        "summary.html",
        "ranks.csv",
        "heatmap.png",
        "heatmap.pdf",
        "heatmap_labels.png",
        "heatmap_distances.png",
        "heatmap_persistence.png",
        "stats.csv",
        "stats.md",
        "stats.html",
        "cd.png",
        "cd.pdf",
        "vs_random.csv",
        "vs_random_across.csv",
        "vs_random.md",
        "vs_random.html",
    ]
    return [f"results/{report}/{f}" for f in files]


PAPER_TARGETS["benchmark"] = benchmark_targets

# The report's summary.csv / summary.md would collide with an experiment's own summary of that name.
for _report in paper_reports("benchmark"):
    if _report in config["experiments"]:
        raise ValueError(
            f"benchmark report folder {_report!r} is also an experiment's name; "
            "give the experiment or the report_dir another name."
        )

BENCHMARK_REPORT = exactly(paper_reports("benchmark"))
