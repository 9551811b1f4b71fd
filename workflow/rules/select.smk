# One selector run = one job; it stores the full ranking, so every feature count is evaluated from it.


rule select_features:
    input:
        unpack(selection_data),
    output:
        "results/{experiment}/selections/{dataset}/{method}/{params}/rep{rep}.npz",
    log:
        "logs/select/{experiment}/{dataset}/{method}/{params}/rep{rep}.log",
    benchmark:
        "logs/times/select/{experiment}/{dataset}/{method}/{params}/rep{rep}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        spec=selector_spec,
        seed=run_seed,
        n_features=experiment_value("n_features"),
    script:
        "../../scripts/select.py"
