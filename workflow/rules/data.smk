# Raw data download (mirror first, then upstream, checksum verified) and dataset preparation.


rule download_source:
    output:
        "resources/raw/{source}.manifest.json",
    log:
        "logs/download/{source}.log",
    conda:
        ENV
    resources:
        downloads=1,
    params:
        source=lambda w: REGISTRY["sources"][w.source],
    script:
        "../../scripts/download.py"


# A local data file (config overlay, `path:`): its sha256 recorded at first use; the start-up check and
# prepare_dataset compare the file with it on every later use (a changed file is an error saying what to do).
rule record_local_file:
    output:
        "resources/local/{dataset}.json",
    log:
        "logs/record_local/{dataset}.log",
    wildcard_constraints:
        dataset=exactly(LOCAL_DATASETS),
    conda:
        ENV
    params:
        path=lambda w: dataset_entry(REGISTRY, w.dataset)["path"],
    script:
        "../../scripts/record_local.py"


rule prepare_dataset:
    input:
        source_manifest,
    output:
        npz="resources/prepared/{chain}/{dataset}.npz",
        summary="resources/prepared/{chain}/{dataset}.json",
    log:
        "logs/prepare/{chain}/{dataset}.log",
    benchmark:
        "logs/times/prepare/{chain}/{dataset}.tsv"
    conda:
        ENV
    resources:
        mem_mb=4000,
    params:
        entry=loader_entry,
        steps=chain_steps,
        seed=lambda w: derive_seed(config["seed"], "prepare", w.dataset),
    script:
        "../../scripts/prepare.py"
