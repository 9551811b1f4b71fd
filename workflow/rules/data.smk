# Raw data download (mirror first, then upstream, checksum verified) and dataset preparation.


rule download_source:
    output:
        "resources/raw/{source}.manifest.json",
    params:
        source=lambda w: REGISTRY["sources"][w.source],
    log:
        "logs/download/{source}.log",
    resources:
        downloads=1,
    conda:
        ENV
    script:
        "../../scripts/download.py"


# A local data file (config overlay, `path:`): its sha256 recorded at first use; the start-up check and
# prepare_dataset compare the file with it on every later use (a changed file is an error saying what to do).
rule record_local_file:
    output:
        "resources/local/{dataset}.json",
    wildcard_constraints:
        dataset=exactly(LOCAL_DATASETS),
    params:
        path=lambda w: dataset_entry(REGISTRY, w.dataset)["path"],
    log:
        "logs/record_local/{dataset}.log",
    conda:
        ENV
    script:
        "../../scripts/record_local.py"


rule prepare_dataset:
    input:
        source_manifest,
    output:
        npz="resources/prepared/{chain}/{dataset}.npz",
        summary="resources/prepared/{chain}/{dataset}.json",
    params:
        entry=loader_entry,
        steps=chain_steps,
        seed=lambda w: derive_seed(config["seed"], "prepare", w.dataset),
    log:
        "logs/prepare/{chain}/{dataset}.log",
    benchmark:
        "benchmarks/prepare/{chain}/{dataset}.tsv"
    resources:
        mem_mb=4000,
    conda:
        ENV
    script:
        "../../scripts/prepare.py"
