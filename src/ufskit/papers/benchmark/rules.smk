# Cross-paper benchmark: every selector on every dataset of the papers (experiments with
# `paper: benchmark`, one per dataset family, on the generic select -> evaluate -> aggregate path),
# ranked per dataset and metric, tested across datasets (Friedman + Nemenyi) and against the Random
# selector's draws; outputs go to results/<report_dir>/ (ufskit.papers.benchmark, benchmark_stats).


include: "common.smk"


# results/<report>/summary.* is the benchmark's, never a (non-existent) experiment's generic summary
ruleorder: benchmark_summary > summary_table


rule benchmark_summary:
    input:
        benchmark_metric_tables,
    output:
        csv="results/{report}/summary.csv",
        md="results/{report}/summary.md",
        html=paper_report("results/{report}/summary.html", "benchmark", "benchmark_summary"),
        ranks="results/{report}/ranks.csv",
    log:
        "logs/benchmark/{report}/summary.log",
    wildcard_constraints:
        report=BENCHMARK_REPORT,
    conda:
        ENV
    params:
        run=report_run,
        title=benchmark_title,
        config=benchmark_params,
    script:
        "scripts/benchmark_summary.py"


rule benchmark_heatmap:
    input:
        summary="results/{report}/summary.csv",
        ranks="results/{report}/ranks.csv",
    output:
        png=paper_report("results/{report}/heatmap.png", "benchmark", "benchmark_heatmap"),
        pdf="results/{report}/heatmap.pdf",
        labels=paper_report("results/{report}/heatmap_labels.png", "benchmark", "benchmark_heatmap_labels"),
        distances=paper_report("results/{report}/heatmap_distances.png", "benchmark", "benchmark_heatmap_distances"),
        persistence=paper_report(
            "results/{report}/heatmap_persistence.png", "benchmark", "benchmark_heatmap_persistence"
        ),
    log:
        "logs/benchmark/{report}/heatmap.log",
    wildcard_constraints:
        report=BENCHMARK_REPORT,
    conda:
        ENV
    params:
        run=report_run,
        title=benchmark_title,
    script:
        "scripts/benchmark_heatmap.py"


rule benchmark_stats:
    input:
        summary="results/{report}/summary.csv",
    output:
        csv="results/{report}/stats.csv",
        md="results/{report}/stats.md",
        html=paper_report("results/{report}/stats.html", "benchmark", "benchmark_stats"),
        png=paper_report("results/{report}/cd.png", "benchmark", "benchmark_cd"),
        pdf="results/{report}/cd.pdf",
    log:
        "logs/benchmark/{report}/stats.log",
    wildcard_constraints:
        report=BENCHMARK_REPORT,
    conda:
        ENV
    params:
        run=report_run,
        title=benchmark_title,
    script:
        "scripts/benchmark_stats.py"


rule benchmark_vs_random:
    input:
        benchmark_metric_tables,
    output:
        csv="results/{report}/vs_random.csv",
        across="results/{report}/vs_random_across.csv",
        md="results/{report}/vs_random.md",
        html=paper_report("results/{report}/vs_random.html", "benchmark", "benchmark_vs_random"),
    log:
        "logs/benchmark/{report}/vs_random.log",
    wildcard_constraints:
        report=BENCHMARK_REPORT,
    conda:
        ENV
    params:
        config=benchmark_params,
        run=report_run,
        title=benchmark_title,
    script:
        "scripts/benchmark_vs_random.py"
