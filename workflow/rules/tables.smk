# Generic tables every experiment gets: the results summary and the datasets as prepared.


rule summary_table:
    input:
        "results/{experiment}/metrics.parquet",
    output:
        csv="results/{experiment}/summary.csv",
        md="results/{experiment}/summary.md",
    log:
        "logs/summary/{experiment}.log",
    conda:
        ENV
    script:
        "../../scripts/summary_table.py"


rule dataset_table:
    input:
        experiment_summaries,
    output:
        "results/{experiment}/datasets.md",
    log:
        "logs/dataset_table/{experiment}.log",
    conda:
        ENV
    params:
        names=lambda w: experiment_datasets(w.experiment),
    script:
        "../../scripts/dataset_table.py"


rule excluded_datasets:
    output:
        "results/excluded_datasets.md",
    log:
        "logs/excluded_datasets.log",
    conda:
        ENV
    params:
        excluded=EXCLUDED,
    script:
        "../../scripts/excluded_datasets.py"
