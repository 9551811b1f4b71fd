# Metrics of each selection, the per-dataset work they share, and the long-format results table.


rule full_diagram:
    input:
        prepared_data,
    output:
        "results/{experiment}/shared/{dataset}/h1_diagram.npz",
    params:
        options=lambda w: config["experiments"][w.experiment]["metrics"]["persistence"],
    log:
        "logs/full_diagram/{experiment}/{dataset}.log",
    benchmark:
        "benchmarks/full_diagram/{experiment}/{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
    conda:
        ENV
    script:
        "../../scripts/full_diagram.py"


rule evaluate_selection:
    input:
        unpack(evaluation_inputs),
    output:
        "results/{experiment}/metrics/{dataset}/{method}/{params}/rep{rep}.parquet",
    params:
        n_features=lambda w: config["experiments"][w.experiment]["n_features"],
        metrics=lambda w: config["experiments"][w.experiment]["metrics"],
        seed=evaluation_seed,
    log:
        "logs/evaluate/{experiment}/{dataset}/{method}/{params}/rep{rep}.log",
    benchmark:
        "benchmarks/evaluate/{experiment}/{dataset}/{method}/{params}/rep{rep}.tsv"
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    conda:
        ENV
    script:
        "../../scripts/evaluate.py"


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
