# Config validation, the dataset registry and the input functions shared by every rule; a paper's own input
# functions are in its folder (src/ufskit/papers/<name>/common.smk, included by its rules.smk).

import atexit
import os
import re
import sys
from functools import cache
from pathlib import Path
from types import SimpleNamespace

from snakemake.utils import validate

from ufskit import config_check
from ufskit import experiments as ex
from ufskit import papers as PAPERS
from ufskit import preflight
from ufskit import protocols as PROTOCOLS
from ufskit import readings as READINGS
from ufskit import run_end
from ufskit import startup
from ufskit.metrics.registry import fill_metric_defaults
from ufskit.registry import dataset_entry, is_local, registry_from_config, source_files
from ufskit.seeds import derive_seed

# Every config file again, strictly (a duplicate key is an error naming it, the file and the line).
_CONFIG_FILES = startup.read_config_files(
    startup.config_files_in_merge_order(workflow.configfiles, workflow.config_settings.configfiles)
)
# the paper folders outside the package (config `paper_folders`): registered after the built-in ones, importable
# here and in the jobs; then each registered paper's settings of the run's protocol (its folder's
# protocols/<protocol>.yaml), merged just after the config file setting `protocol`
startup.resolve_paper_folders(config, _CONFIG_FILES, os.getcwd())
startup.use_python_path(config.get("paper_folders"))
PAPERS.register_folders(config.get("paper_folders"))
PROTOCOLS.add_paper_protocols(
    config, [content for _, content in _CONFIG_FILES] + [dict(workflow.config_settings.config)], PAPERS.registry()
)
# n_features with the expected forms, before the schema (whose oneOf message gives no reason)
startup.prepare_experiments(config)
validate(config, schema="../schemas/config.schema.yaml")
preflight.check_run_names(config)  # before anything looks an experiment of `run` up
fill_metric_defaults(config["experiments"])  # the metrics' options: checked by their registry, defaults written
# the alternative readings (config `readings`, `run_readings`): derived experiments under readings/<name>/,
# validated like the main ones; report folder readings/<name>/<report> -> its reading, base report, experiments
READING_FOLDERS = READINGS.derive(config, PAPERS.scored())
config_check.check_experiment_schema(
    config["experiments"],
    sorted({n for f in READING_FOLDERS.values() for n in f["experiments"] if n.startswith(f"{READINGS.PREFIX}/")}),
    Path(workflow.basedir) / "workflow/schemas/config.schema.yaml",
)
startup.resolve_overlay_paths(config, _CONFIG_FILES, os.getcwd())
startup.use_python_path(config.get("python_path"))

REPO = Path(workflow.basedir)
ENV = str(REPO / "envs/ufskit.yaml")  # absolute: the rules of the paper folders use it too
REGISTRY = registry_from_config(config, REPO)  # config/datasets.yaml + the overlay's sources and datasets
EXCLUDED = config["data"]["exclude"]
LOCAL_DATASETS = sorted(n for n, e in REGISTRY["datasets"].items() if is_local(e))
# every cross-reference (run, datasets, chains, selectors and parameters, counts, protocol, local files), once
# the local files' loaders and columns, their d (read from the header) for the feature counts, a mirror when offline
# (an unknown dataset is left to check_config, which names it with a did-you-mean)
_USED = sorted(
    {
        d
        for n in config["run"]
        for d in config["experiments"][n]["datasets"]
        if d not in EXCLUDED and d in REGISTRY["datasets"]
    }
)
_LOCAL_D = preflight.check_local_data(REGISTRY, _USED)
preflight.check_offline(config, REGISTRY, _USED)
config_check.check_config(
    config,
    preflight.with_local_shapes(REGISTRY, _LOCAL_D),
    "resources/local",
    "resources/hashcache/local",
    "resources/hashcache/selectors_checked.sha256",
)
for _warning in preflight.scan_local_tables(REGISTRY, _USED):
    print(f"Warning: {_warning}", file=sys.stderr)


wildcard_constraints:
    experiment=r"(?:readings/[^/]+/)?[^/]+",
    dataset=r"[^/]+",
    method=r"[^/]+",
    params=r"[^/]+",
    shard=r"[^/]+",
    chain=r"[^/]+",
    rep=r"\d+",


if EXCLUDED:
    print("Excluded datasets (config data.exclude; listed in results/excluded_datasets.md):", file=sys.stderr)
    for _name, _why in EXCLUDED.items():
        print(f"  - {_name}: {_why}", file=sys.stderr)


def shared_script(name):
    """A script of the workflow's scripts/ folder, for a rule of a paper's folder (its own are in its scripts/)."""
    return str(REPO / "scripts" / name)


def print_plan_summary():
    """At the end of a dry run: its jobs per rule and an estimate of their time (ufskit.run_end). Registered at
    exit, as Snakemake runs no hook after a dry run (and knows whether it is one only once the run starts)."""
    if workflow.dryrun and workflow.dag is not None:
        dag = workflow.dag  # as Snakemake's own job stats count them: a dry run marks its jobs finished
        jobs = [job.rule.name for job in [*dag.needrun_jobs(), *dag.finished_jobs]]
        print(run_end.plan_summary(jobs, workflow.cores), file=sys.stderr)


atexit.register(print_plan_summary)


def failed_jobs():
    """The failed jobs of this run, for the Snakefile's ``onerror`` (ufskit.run_end.failure_summary)."""
    return [
        {"rule": job.rule.name, "dataset": job.wildcards_dict.get("dataset"), "log": next(iter(job.log), None)}
        for job in workflow.scheduler.failed
    ]


# ---- datasets ---------------------------------------------------------------------------


def experiment_datasets(name):
    """The experiment's datasets minus the excluded ones (which are reported, never dropped silently)."""
    return [d for d in config["experiments"][name]["datasets"] if d not in EXCLUDED]


def chain_steps(wildcards):
    """The preprocessing steps of chain `wildcards.chain` for `wildcards.dataset` (`default_unscaled`: the
    registry's chain without its final z-scoring, ufskit.experiments.unscaled_steps)."""
    if wildcards.chain == "default":
        return dataset_entry(REGISTRY, wildcards.dataset).get("preprocess", [])
    if wildcards.chain == ex.UNSCALED:
        return ex.unscaled_steps(dataset_entry(REGISTRY, wildcards.dataset).get("preprocess", []))
    return config["chains"][wildcards.chain]


def loader_entry(wildcards):
    """The dataset's registry entry with the paths of its own files (so a change elsewhere reruns nothing)."""
    entry = dict(dataset_entry(REGISTRY, wildcards.dataset))
    if is_local(entry):
        entry["files"] = [entry["path"]]
    elif entry.get("source"):
        entry["files"] = [f["path"] for f in source_files(REGISTRY, entry["source"])]
    return entry


def source_manifest(wildcards):
    """The download of the dataset's source, or the hash record of its local file ([] for generated data)."""
    entry = dataset_entry(REGISTRY, wildcards.dataset)
    if is_local(entry):
        return [f"resources/local/{wildcards.dataset}.json"]
    return [f"resources/raw/{entry['source']}.manifest.json"] if entry.get("source") else []


def prepared_data(wildcards):
    """The prepared matrix an experiment's jobs read."""
    chain = config["experiments"][wildcards.experiment]["preprocess"]
    return f"resources/prepared/{chain}/{wildcards.dataset}.npz"


def selection_data(wildcards):
    """The prepared matrix a method's selection job reads (`data`): that of its `select_preprocess` chain when its
    steps differ from the experiment's on this dataset (Variance on the unscaled data of a standardising chain),
    then with the experiment's (`evaluated`, which the selection is evaluated on) to check the columns are the same."""
    exp = config["experiments"][wildcards.experiment]
    chain = ex.selection_chain(exp, wildcards.method)
    steps = {c: chain_steps(SimpleNamespace(chain=c, dataset=wildcards.dataset)) for c in (chain, exp["preprocess"])}
    if steps[chain] == steps[exp["preprocess"]]:
        return {"data": prepared_data(wildcards)}
    return {"data": f"resources/prepared/{chain}/{wildcards.dataset}.npz", "evaluated": prepared_data(wildcards)}


# ---- selector runs ----------------------------------------------------------------------


def experiment_value(*keys):
    """Input or params function: the value at `keys` of the job's experiment, config["experiments"][experiment][k1]...

    Snakemake's lookup(dpath=...) reads the same, but a reading's experiment is named readings/<name>/<experiment>,
    and dpath would split that name at its slashes."""

    def value(wildcards):
        node = config["experiments"][wildcards.experiment]
        for key in keys:
            node = node[key]
        return node

    return value


def selector_spec(wildcards):
    """Selector class name and parameter dict of one run."""
    exp = config["experiments"][wildcards.experiment]
    params = ex.settings_by_slug(exp, wildcards.method)[wildcards.params]
    return {"selector": exp["methods"][wildcards.method]["selector"], "params": params}


def experiment_seed(experiment, *identity):
    """Seed of an experiment's job; a reading's derived experiment shares its main experiment's seeds."""
    return derive_seed(config["seed"], READINGS.seed_identity(experiment), *identity)


def fit_seed(wildcards, rep, params=None):
    """Seed from the run's identity: the same run always gets the same seed (``params``: the
    setting's slug, if not the wildcards')."""
    slug = wildcards.params if params is None else params
    return experiment_seed(wildcards.experiment, wildcards.dataset, wildcards.method, slug, rep)


def evaluation_seed_of(wildcards, rep):
    """Seed of the evaluation's random splits and K-means starts: shared by every method and
    parameter setting of a dataset and repetition, so that methods are compared on the same folds."""
    return experiment_seed(wildcards.experiment, wildcards.dataset, "evaluation", rep)


def run_seed(wildcards):
    return fit_seed(wildcards, int(wildcards.rep))


def evaluation_seed(wildcards):
    return evaluation_seed_of(wildcards, int(wildcards.rep))


# paper -> function(wildcards with experiment, dataset, method) -> {shard: runs}, registered by a paper's rules
# file whose experiments run methods batched in shards of their own (IVFS: settings sharing one fit; NRFS: every
# method of the synthetic experiment); configured_batch_plan is the plan of the other papers
BATCH_PLANS = {}
# the shard of a method batched whole: every setting and repetition in one job
WHOLE_METHOD = "all"


def method_runs(wildcards):
    """Every run of a method on a dataset, each setting and repetition, as a batched job takes them.

    A run is {params, spec, rep, fit_seed, evaluation_seed} with the seeds its separate select and evaluate jobs
    would get (ufskit.runs.run_batched), so batching changes no number."""
    exp = config["experiments"][wildcards.experiment]
    selector = exp["methods"][wildcards.method]["selector"]
    reps = range(ex.method_reps(exp, wildcards.method))
    return [
        {
            "params": slug,
            "spec": {"selector": selector, "params": params},
            "rep": rep,
            "fit_seed": fit_seed(wildcards, rep, slug),
            "evaluation_seed": evaluation_seed_of(wildcards, rep),
        }
        for slug, params in ex.settings_by_slug(exp, wildcards.method).items()
        for rep in reps
    ]


def configured_batch_plan(wildcards):
    """A method marked `batch: true` runs as one shard, `all`; any other one job per run ({})."""
    exp = config["experiments"][wildcards.experiment]
    return {WHOLE_METHOD: method_runs(wildcards)} if ex.is_batched(exp, wildcards.method) else {}


@cache  # asked for by every batched job and every metrics table; the config no longer changes once parsed
def batch_plan(experiment, dataset, method):
    """The batched jobs of a method on a dataset: shard -> its runs ({} when the method runs one job per run)."""
    paper = config["experiments"][experiment]["paper"]
    w = SimpleNamespace(experiment=experiment, dataset=dataset, method=method)
    return BATCH_PLANS.get(paper, configured_batch_plan)(w)


def batch_runs(wildcards):
    """The runs of one batched job (rule run_batched_method)."""
    plan = batch_plan(wildcards.experiment, wildcards.dataset, wildcards.method)
    if wildcards.shard not in plan:
        raise ValueError(
            f"{wildcards.method} of {wildcards.experiment} on {wildcards.dataset} has no batched shard "
            f"{wildcards.shard!r}; its shards: {sorted(plan)}"
        )
    return plan[wildcards.shard]


def experiment_runs(name):
    return ex.experiment_runs(name, config["experiments"][name], experiment_datasets(name))


def metric_files(wildcards):
    """Every metrics table of one experiment: one per run, or one per shard of a batched method on a dataset."""
    plans = {}
    files = []
    for r in experiment_runs(wildcards.experiment):
        base = f"results/{r.experiment}/metrics/{r.dataset}/{r.method}"
        if (r.dataset, r.method) not in plans:
            plans[r.dataset, r.method] = batch_plan(r.experiment, r.dataset, r.method)
        plan = plans[r.dataset, r.method]
        files += [f"{base}/batch/{shard}.parquet" for shard in plan] or [f"{base}/{r.params}/rep{r.rep}.parquet"]
    return list(dict.fromkeys(files))


def evaluation_data(wildcards):
    """Prepared data and, if persistence is evaluated, the full-data diagram."""
    inputs = {"data": prepared_data(wildcards)}
    if "persistence" in config["experiments"][wildcards.experiment]["metrics"]:
        inputs["diagram"] = f"results/{wildcards.experiment}/shared/{wildcards.dataset}/h1_diagram.npz"
    return inputs


def evaluation_inputs(wildcards):
    """Prepared data, the selection and, if persistence is evaluated, the full-data diagram."""
    w = wildcards
    selection = f"results/{w.experiment}/selections/{w.dataset}/{w.method}/{w.params}/rep{w.rep}.npz"
    return {**evaluation_data(wildcards), "selection": selection}


def experiment_summaries(wildcards):
    """Summaries of the prepared datasets an experiment uses."""
    chain = config["experiments"][wildcards.experiment]["preprocess"]
    return [f"resources/prepared/{chain}/{d}.json" for d in experiment_datasets(wildcards.experiment)]


# ---- targets ----------------------------------------------------------------------------


# Each paper's .smk file registers a function (report folder name -> its tables and figures) here.
PAPER_TARGETS = {}


def report_dir(name):
    exp = config["experiments"][name]
    return exp.get("report_dir", exp["paper"])


def exactly(names):
    """A wildcard constraint matching exactly `names` (never matching when there are none)."""
    return "|".join(re.escape(n) for n in sorted(set(names))) or "(?!)"


def paper_reports(paper):
    """Report folders of every configured experiment of `paper` (for wildcard constraints)."""
    return {report_dir(n) for n, e in config["experiments"].items() if e["paper"] == paper}


def report_experiments(report):
    """The experiments in `run` whose tables and figures go to results/<report>/, by name.

    A reading's folder holds its derived experiments and the base report's others, shared."""
    if report in READING_FOLDERS:
        return READING_FOLDERS[report]["experiments"]
    return [name for name in config["run"] if report_dir(name) == report]


def role_experiment(report, paper, role):
    """The experiment of `report` (in `run`) that plays `role` in `paper` (config `role`): how a paper's rules find
    their inputs. None when there is none; several are an error."""
    names = [
        n
        for n in report_experiments(report)
        if config["experiments"][n]["paper"] == paper and config["experiments"][n].get("role") == role
    ]
    if len(names) > 1:
        raise ValueError(f"report {report!r} has several {paper} experiments with role {role!r}: {names}.")
    return names[0] if names else None


def writes_scorecard():
    """True when `run` holds an experiment of a paper with scorecard rows: only such runs (re)write the scorecard,
    so a run of other experiments (e.g. your own data) leaves results/scorecard.* as they are."""
    return any(config["experiments"][n]["paper"] in PAPERS.scored() for n in config["run"])


def final_outputs():
    """The default target: per experiment in `run` its summary, per paper its tables and figures, and the
    scorecard when `run` holds paper experiments."""
    outputs = ["results/excluded_datasets.md"]
    if writes_scorecard():
        outputs += ["results/scorecard.csv", "results/scorecard.md", "results/scorecard.html"]
    for name in config["run"]:
        outputs += [f"results/{name}/summary.md", f"results/{name}/datasets.md"]
        paper = config["experiments"][name]["paper"]
        if paper in PAPER_TARGETS:
            outputs += PAPER_TARGETS[paper](report_dir(name))
    return sorted(set(outputs))
