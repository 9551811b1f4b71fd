"""The SLURM execution profile (profiles/slurm): it parses as Snakemake parses it, names only real
rules and sizes every benchmarked rule; and a small version of the generic smoke experiment really
runs through SLURM with it (one sbatch job per Snakemake job). That end-to-end test needs a SLURM
cluster with an idle node (CI starts one with .ci/slurm-up) and the executor plugin; without them
it is skipped, or fails when UFS_REQUIRE_SLURM=1."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml
from snakemake.profiles import ProfileConfigFileParser

from conftest import ROOT
from ufskit.protocols import load_config

PROFILE = ROOT / "profiles" / "slurm"
SUBMITTED = re.compile(r"Job (\d+) has been submitted with SLURM jobid (\d+) \(log: (\S+)\)")


def profile_args(monkeypatch, **env) -> dict:
    """The profile as Snakemake's profile parser turns it into command-line defaults."""
    for name in ("UFS_SLURM_PARTITION", "UFS_SLURM_ACCOUNT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with open(PROFILE / "config.yaml") as stream:
        return ProfileConfigFileParser().parse(stream)


def load_script(name: str):
    """A script of benchmarks/ as a module (they are not part of the package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SIZING = load_script("slurm_resources")


def set_resources(args: dict) -> dict[str, dict[str, str]]:
    """{rule: {resource: expression}} from the parsed set-resources entries."""
    table: dict[str, dict[str, str]] = {}
    for entry in args["set-resources"]:
        rule, assignment = entry.split(":", 1)
        name, expression = assignment.split("=", 1)
        table.setdefault(rule, {})[name] = expression
    return table


def test_profile_parses_and_names_only_existing_rules(monkeypatch):
    args = profile_args(monkeypatch)
    assert args["executor"] == "slurm"
    rules = SIZING.workflow_rules(ROOT)
    names, benchmarked = set(rules), {name for name, pattern in rules.items() if pattern}
    assert {"select_features", "evaluate_selection", "all"} <= names and benchmarked
    sized = set_resources(args)
    assert set(sized) <= names, f"profile sizes unknown rules: {set(sized) - names}"
    assert benchmarked <= set(sized), f"benchmarked rules without a size: {benchmarked - set(sized)}"
    assert {"runtime", "mem_mb"} == {entry.split("=", 1)[0] for entry in args["default-resources"]}
    for entry in args.get("set-threads", []):
        assert entry.split("=", 1)[0] in names, entry


def test_every_size_is_positive_and_doubles_on_the_retry(monkeypatch):
    args = profile_args(monkeypatch)
    experiments = load_config(ROOT)["experiments"]  # the full protocol's, the papers' protocols/full.yaml included
    defaults = dict(entry.split("=", 1) for entry in args["default-resources"])
    expressions = [*defaults.values(), *(e for r in set_resources(args).values() for e in r.values())]
    for expression in expressions:
        for experiment in experiments:
            wildcards = SimpleNamespace(experiment=experiment)
            first, second = (eval(expression, {"attempt": a, "wildcards": wildcards}) for a in (1, 2))
            assert isinstance(first, int) and first > 0 and second == 2 * first, (expression, experiment)
    # the heavier variant of a rule gets more: memory for text selections, time for the full IVFS grid
    sized = set_resources(args)

    def size(rule, resource, experiment):
        return eval(sized[rule][resource], {"attempt": 1, "wildcards": SimpleNamespace(experiment=experiment)})

    assert size("select_features", "mem_mb", "nrfs_text") > size("select_features", "mem_mb", "nrfs_microarray")
    assert size("run_batched_method", "runtime", "ivfs") > size("run_batched_method", "runtime", "ivfs_reduced")


def test_sizing_script_maps_benchmarks_to_rules_and_doubles_the_maximum(tmp_path):
    files = {  # path under logs/times/ (the rules' benchmark: files): (seconds, max_rss MB) rows
        "select/exp/wine/LS/default/rep0.tsv": [(100.0, 600.0)],
        "select/exp/wine/LS/default/rep1.tsv": [(700.0, 240.0)],
        "select/readings/a_reading/exp/wine/LS/default/rep0.tsv": [(50.0, 100.0)],  # a reading's experiment
        "nrfs_sampling/readings/a_reading/nrfs.tsv": [(2.0, 250.0)],  # a reading's NRFS report folder
        "prepare/zscore/wine.tsv": [(3.0, "-"), (5.0, 200.0)],  # "-": too short to measure
        "nothing/like/this.tsv": [(1.0, 1.0)],
    }
    for name, rows in files.items():
        path = tmp_path / "logs/times" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = ["s\th:m:s\tmax_rss"] + [f"{sec}\t0:00:00\t{rss}" for sec, rss in rows]
        path.write_text("\n".join(lines) + "\n")
    frame, unmatched = SIZING.read_benchmarks([tmp_path], SIZING.benchmark_patterns(ROOT))
    assert unmatched == ["logs/times/nothing/like/this.tsv"]
    stats = SIZING.suggest(frame, factor=2, mem_step=500, min_mem=1000, min_minutes=10)
    select, prepare = stats.loc["select_features"], stats.loc["prepare_dataset"]
    assert (select.jobs, select.max_s, select.max_rss_mb) == (3, 700.0, 600.0)
    assert (select.runtime, select.mem_mb) == (24, 1500)  # ceil(1400 s / 60); 1200 MB -> 1500
    assert (prepare.jobs, prepare.runtime, prepare.mem_mb) == (2, 10, 1000)  # the floors
    assert stats.loc["nrfs_sampling", "jobs"] == 1


def test_partition_and_account_come_from_the_environment(monkeypatch):
    assert not any(e.startswith("slurm_") for e in profile_args(monkeypatch)["default-resources"])
    args = profile_args(monkeypatch, UFS_SLURM_PARTITION="short", UFS_SLURM_ACCOUNT="lab1")
    assert {"slurm_partition=short", "slurm_account=lab1"} <= set(args["default-resources"])


def idle_partition() -> str | None:
    """A partition with an idle node (the default one if it has), or None; None without sinfo."""
    if shutil.which("sinfo") is None:
        return None
    proc = subprocess.run(["sinfo", "-h", "-o", "%P|%t"], capture_output=True, text=True, check=False)
    # one line per partition and node state; "idle" exactly (a drained idle node is "drain")
    partitions = [line.split("|")[0] for line in proc.stdout.split() if line.endswith("|idle")]
    defaults = [p.rstrip("*") for p in partitions if p.endswith("*")]
    return (defaults or partitions or [None])[0]


def run_until(cmd, timeout, **kwargs) -> tuple[int, str]:
    """Run ``cmd`` and return (exit code, output). Past ``timeout`` seconds interrupt it as Ctrl-C
    would, so that Snakemake cancels the SLURM jobs it submitted, and return code -1."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs) as proc:
        try:
            output = proc.communicate(timeout=timeout)[0]
            return proc.returncode, output
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
            try:
                output = proc.communicate(timeout=120)[0]
            except subprocess.TimeoutExpired:
                proc.kill()
                output = proc.communicate()[0]
            return -1, f"{output}\ntimed out after {timeout} s"


@pytest.fixture
def partition() -> str:
    """The partition the end-to-end test submits to; skips (or fails if required) without one."""
    name = idle_partition()
    reason = None
    if name is None:
        reason = ("no SLURM cluster with an idle node (sinfo missing or no idle node); "
                  "run .ci/slurm-up as root to start a local one")
    elif importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        reason = 'snakemake-executor-plugin-slurm is not installed (pip install -e ".[slurm]")'
    if reason and os.environ.get("UFS_REQUIRE_SLURM") == "1":
        pytest.fail(f"UFS_REQUIRE_SLURM=1 but {reason}")
    if reason:
        pytest.skip(reason)
    return name


def small_smoke_config(path) -> str:
    """A config file adding `slurm_smoke`: the generic smoke experiment on wine with two methods
    (every rule of the generic path, in about a dozen jobs, so the test stays short)."""
    experiment = yaml.safe_load((ROOT / "config" / "smoke.yaml").read_text())["experiments"]["smoke"]
    experiment.update(datasets=["wine"], methods={m: experiment["methods"][m] for m in ("LS", "MCFS")})
    path.write_text(yaml.safe_dump({"run": ["slurm_smoke"], "experiments": {"slurm_smoke": experiment}}))
    return str(path)


@pytest.mark.workflow
def test_smoke_experiment_runs_through_slurm(tmp_path, mirror, partition):
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"),
           "--profile", str(PROFILE), "--workflow-profile", "none",
           "--configfile", str(ROOT / "config" / "smoke.yaml"), small_smoke_config(tmp_path / "slurm.yaml"),
           # test-only settings: a few jobs at once, quick status polling, keep the SLURM logs;
           # squeue, as the CI cluster has no accounting database for sacct
           "--jobs", "4", "--latency-wait", "10", "--slurm-init-seconds-before-status-checks", "15",
           "--slurm-status-command", "squeue", "--slurm-keep-successful-logs"]
    env = {**os.environ, "UFS_DATA_MIRROR": str(mirror), "UFS_SLURM_PARTITION": partition}
    code, log = run_until(cmd, timeout=600, cwd=tmp_path, env=env)
    assert code == 0, log[-8000:]

    # the outputs are those of the experiment
    results = tmp_path / "results" / "slurm_smoke"
    summary = pd.read_csv(results / "summary.csv")
    assert set(summary["dataset"]) == {"wine"} and set(summary["method"]) == {"LS", "MCFS"}
    for metric in ("kmeans_acc", "knn_acc", "cv1nn_acc", "L2", "w11", "fit_seconds"):
        assert metric in set(summary["metric"]), metric
    acc = summary.query("metric == 'knn_acc'")["mean"]
    assert acc.between(0, 1).all() and acc.max() > 0.5
    assert "| wine | 178 | 13 | 3 |" in (results / "datasets.md").read_text()

    # every job but `all` went through sbatch, and the log SLURM wrote for it (named by its SLURM
    # job id) shows it finished; select_features ran with the profile's size, not the rule's own
    submissions: dict[str, list[tuple[str, str]]] = {}
    for job, slurm_id, path in SUBMITTED.findall(log):
        submissions.setdefault(job, []).append((slurm_id, path))
    n_jobs = int(re.search(r"^total\s+(\d+)\s*$", log, re.MULTILINE).group(1))
    assert len(submissions) == n_jobs - 1 >= 10, f"{len(submissions)} of {n_jobs} jobs submitted"
    rules = set()
    for slurm_id, path in (runs[-1] for runs in submissions.values()):
        slurm_log = tmp_path / path
        assert slurm_log.name == f"{slurm_id}.log" and slurm_log.is_file(), path
        text = slurm_log.read_text()
        assert "1 of 1 steps (100%) done" in text, text[-2000:]
        rule = slurm_log.relative_to(tmp_path / ".snakemake" / "slurm_logs").parts[0].removeprefix("rule_")
        rules.add(rule)
        if rule == "select_features":
            assert re.search(r"resources: .*mem_mb=1500\b.*runtime=10\b", text), text[:3000]
    assert {"prepare_dataset", "select_features", "evaluate_selection", "full_diagram",
            "aggregate_metrics", "summary_table"} <= rules
