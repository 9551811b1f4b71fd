# Metrics of each selection, the per-dataset work they share, and the long-format results table.


rule full_diagram:
    input:
        prepared_data,
    output:
        "results/{experiment}/shared/{dataset}/h1_diagram.npz",
    log:
        "logs/full_diagram/{experiment}/{dataset}.log",
    benchmark:
        "logs/times/full_diagram/{experiment}/{dataset}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
    params:
        options=experiment_value("metrics", "persistence"),
    script:
        "../../scripts/full_diagram.py"


rule evaluate_selection:
    input:
        unpack(evaluation_inputs),
    output:
        "results/{experiment}/metrics/{dataset}/{method}/{params}/rep{rep}.parquet",
    log:
        "logs/evaluate/{experiment}/{dataset}/{method}/{params}/rep{rep}.log",
    benchmark:
        "logs/times/evaluate/{experiment}/{dataset}/{method}/{params}/rep{rep}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        n_features=experiment_value("n_features"),
        metrics=lambda w: ex.method_metrics(config["experiments"][w.experiment], w.method),
        seed=evaluation_seed,
    script:
        "../../scripts/evaluate.py"


rule run_batched_method:
    input:
        unpack(evaluation_data),
    output:
        "results/{experiment}/metrics/{dataset}/{method}/batch/{shard}.parquet",
    log:
        "logs/batched/{experiment}/{dataset}/{method}/{shard}.log",
    benchmark:
        "logs/times/batched/{experiment}/{dataset}/{method}/{shard}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        runs=batch_runs,
        n_features=experiment_value("n_features"),
        metrics=lambda w: ex.method_metrics(config["experiments"][w.experiment], w.method),
    script:
        "../../scripts/select_evaluate_batch.py"


rule aggregate_metrics:
    input:
        metric_files,
    output:
        "results/{experiment}/metrics.parquet",
    log:
        "logs/aggregate/{experiment}.log",
    conda:
        ENV
    script:
        "../../scripts/aggregate.py"
