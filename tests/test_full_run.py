"""benchmarks/full_run.py: which parts a call runs, what each part's row records (job-CPU, resumed, commit), and a
resumed run keeping earlier parts' rows."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from types import SimpleNamespace

import pandas as pd
import pytest

from conftest import ROOT
from ufskit.protocols import load_config


@pytest.fixture(scope="module")
def full_run():
    sys.path.insert(0, str(ROOT / "benchmarks"))  # the script imports its sibling slurm_resources
    try:
        spec = importlib.util.spec_from_file_location("full_run", ROOT / "benchmarks" / "full_run.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def load_job_times():
    """tests/test_job_times.py, for its Snakemake log."""
    spec = importlib.util.spec_from_file_location("test_job_times", ROOT / "tests" / "test_job_times.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def config():
    return load_config(ROOT)  # the full protocol: config/config.yaml with the papers' protocols/full.yaml


def test_default_parts_cover_the_run_list_once_and_end_with_the_default_target(full_run, config):
    parts = full_run.parse_parts([], config)
    assert list(parts)[-1] == "default_target" and parts["default_target"] is None
    listed = [e for exps in parts.values() if exps for e in exps]
    assert sorted(listed) == sorted(config["run"])
    assert all("text" in e for e in parts["nrfs_text"]) and "ivfs" in parts["ivfs"]


def test_named_parts_run_only_those_and_unknown_experiments_are_refused(full_run, config):
    parts = full_run.parse_parts(["text=nrfs_text,nrfs_text_q", "default_target"], config)
    assert parts == {"text": ["nrfs_text", "nrfs_text_q"], "default_target": None}
    with pytest.raises(SystemExit, match="unknown: nope"):
        full_run.parse_parts(["x=nrfs_text,nope"], config)
    with pytest.raises(SystemExit, match="bad part"):
        full_run.parse_parts(["x="], config)
    with pytest.raises(SystemExit, match="bad part 'nope'"):
        full_run.parse_parts(["nope"], config)


def test_a_default_part_named_alone_resumes_with_its_experiments(full_run, config):
    defaults = full_run.parse_parts([], config)
    parts = full_run.parse_parts(["ivfs", "nrfs_text", "default_target"], config)
    assert parts == {"ivfs": defaults["ivfs"], "nrfs_text": defaults["nrfs_text"], "default_target": None}


def test_each_part_rewrites_the_table_keeping_earlier_parts_and_one_total(full_run, tmp_path):
    def row(part, wall_s, jobs, rss, code=0, cpu=100.0, resumed=False, commit="a" * 40, dirty=False):
        return {"part": part, "experiments": part, "exit_code": code, "wall_s": wall_s, "job_cpu_s": cpu, "jobs": jobs,
                "peak_rss_mb": rss, "slowest_rules": "r 1 min", "resumed": resumed, "done_before": 0,
                "commit": commit, "dirty": dirty, "cores": 2}

    full_run.write_table(row("a", 600.0, 10, 100.0), "2", tmp_path)
    full_run.write_table(row("b", 3300.0, 5, 300.0, code=1), "2", tmp_path)
    table = full_run.write_table(row("b", 3000.0, 7, 200.0, cpu=5400.0, resumed=True), "2", tmp_path)  # b again
    assert list(table["part"]) == ["a", "b", "total"]
    total = table.set_index("part").loc["total"]
    assert (total["wall_s"], total["jobs"], total["peak_rss_mb"], total["exit_code"]) == (3600.0, 17, 200.0, 0)
    assert (total["job_cpu_s"], bool(total["resumed"]), total["commit"], bool(total["dirty"])) == (5500.0, True, "a" * 40,
                                                                                                   False)
    assert list(table["wall"]) == ["10.0 min", "50.0 min", "1 h 0 min"]
    assert list(table["job_cpu"]) == ["1.7 min", "1 h 30 min", "1 h 32 min"]
    assert pd.read_csv(tmp_path / "full_run.csv")["part"].tolist() == ["a", "b", "total"]
    md = (tmp_path / "full_run.md").read_text()
    assert "| b | b | 0 | 50.0 min | 1 h 30 min | 7 | 200.0 | r 1 min | True | aaaaaaaaaa |" in md
    # a part run at another commit, with changes in the checkout: the total names no one commit
    table = full_run.write_table(row("c", 60.0, 1, 10.0, commit="b" * 40, dirty=True), "2", tmp_path)
    total = table.set_index("part").loc["total"]
    assert (total["commit"], bool(total["dirty"])) == ("several", True)
    assert "| c | c | 0 | 1.0 min | 1.7 min | 1 | 10.0 | r 1 min | False | bbbbbbbbbb (with changes) |" in \
        (tmp_path / "full_run.md").read_text()


def test_a_table_of_an_earlier_version_takes_the_new_rows(full_run, tmp_path):
    """full_run.csv written before job-CPU, resumed and commit were recorded: its rows stay, the total sums what
    is known."""
    pd.DataFrame({"part": ["ils", "total"], "experiments": ["ils", None], "exit_code": [0, 0], "wall_s": [186.0, 186.0],
                  "jobs": [122, 122], "peak_rss_mb": [266.0, 266.0], "slowest_rules": ["x 2 min", None],
                  "wall": ["3.1 min", "3.1 min"]}).to_csv(tmp_path / "full_run.csv", index=False)
    row = {"part": "kudfs", "experiments": "kudfs", "exit_code": 0, "wall_s": 174.0, "job_cpu_s": 240.0, "jobs": 92,
           "peak_rss_mb": 260.0, "slowest_rules": "", "resumed": False, "done_before": 0, "commit": "c" * 40,
           "dirty": False, "cores": 2}
    table = full_run.write_table(row, "2", tmp_path).set_index("part")
    assert table.at["total", "wall_s"] == 360.0 and table.at["total", "job_cpu_s"] == 240.0
    assert table.at["ils", "job_cpu"] == "" and table.at["total", "commit"] == "c" * 40


def test_a_part_row_counts_its_jobs_cpu_and_memory_and_says_whether_it_was_resumed(full_run):
    log = load_job_times().RUN_LOG  # select_features (benchmarked) and summary_table finished, scorecard not
    # the select file's path matches two rules' patterns here: the log names its rule
    bench = pd.DataFrame({"rule": ["other_rule|select_features", "evaluate_selection"], "s": [9.5, 50.0], "cpu_time": [8.25, 40.0],
                          "max_rss": [210.0, 900.0], "path": ["logs/times/select/e/wine/LS/k=5/rep0.tsv",
                                                              "logs/times/evaluate/e/wine/LS/k=5/rep0.tsv"]})
    select_key = "logs/times/select/e/wine/LS/k=5/rep0.tsv"
    planned = {select_key, "summary_table[experiment=e]", "scorecard[]", "aggregate_metrics[experiment=e]"}
    kwargs = dict(planned=planned, named_again=False, commit=("d" * 40, False))
    # the evaluate file is another invocation's; the scorecard was not finished; aggregate_metrics ran in part "x"
    row = full_run.part_row("p", ["e"], 0, 61.0, log, bench, recorded={"aggregate_metrics[experiment=e]": "x"}, **kwargs)
    assert (row["jobs"], row["job_cpu_s"], row["peak_rss_mb"], row["slowest_rules"]) == (2, 8.2, 210.0,
                                                                                        "select_features 0 min")
    assert (row["done_before"], row["resumed"], row["commit"], row["dirty"]) == (1, True, "d" * 40, False)  # the scorecard
    # recorded by this part's earlier invocation, or by no part (run by hand): done before, so resumed
    for part in ("p", ""):
        recorded = {"aggregate_metrics[experiment=e]": part, "scorecard[]": "x"}
        assert full_run.part_row("p", ["e"], 0, 61.0, log, bench, recorded=recorded, **kwargs)["done_before"] == 1
    recorded = {"aggregate_metrics[experiment=e]": "x", "scorecard[]": "x"}
    row = full_run.part_row("p", ["e"], 0, 61.0, log, bench, recorded=recorded, **kwargs)
    assert (row["done_before"], row["resumed"]) == (0, False)
    kwargs["named_again"] = True  # an earlier invocation of the part left its log: resumed whatever the plan says
    assert full_run.part_row("p", ["e"], 0, 61.0, log, bench, recorded=recorded, **kwargs)["resumed"] is True
    kwargs.update(planned=None, named_again=False)  # no plan (its dry run failed): unknown, not resumed
    row = full_run.part_row("p", ["e"], 0, 61.0, log, bench, recorded=recorded, **kwargs)
    assert (row["done_before"], row["resumed"]) == (None, False)


def test_a_plan_lists_the_parts_jobs_but_data_jobs_and_the_target(full_run):
    plan = load_job_times().RUN_LOG.replace("results/e/selections", "resources/selections") + """
[Sat Nov 28 21:16:49 2026]
localrule all:
    input: results/scorecard.csv
    jobid: 0
    reason: Forced execution
    resources: tmpdir=/tmp
"""
    assert full_run.plan_keys(plan) == {"summary_table[experiment=e]", "scorecard[]"}


def test_each_invocation_keeps_its_log_and_the_commit_is_the_checkouts(full_run, tmp_path):
    for i, name in enumerate(["ivfs-20261128-101500.log", "default_target-20261128-121500.log", "ivfs.log",
                              "ivfs-20261128-131500.plan"]):
        (tmp_path / name).write_text("")
        os.utime(tmp_path / name, (1000 + i, 1000 + i))
    assert full_run.part_logs(tmp_path) == [("ivfs", tmp_path / "ivfs-20261128-101500.log"),
                                            ("default_target", tmp_path / "default_target-20261128-121500.log"),
                                            ("ivfs", tmp_path / "ivfs.log")]
    commit, dirty = full_run.git_state(ROOT)
    assert re.fullmatch(r"[0-9a-f]{40}", commit) and dirty in (True, False)
    assert full_run.git_state(tmp_path) == ("unknown", None)


def test_extra_snakemake_arguments_reach_every_part(full_run, tmp_path):
    args = SimpleNamespace(cores="2", configfile=["config/offline.yaml"],
                           snakemake_args="--profile profiles/slurm --rerun-triggers mtime")
    cmd = full_run.snakemake_command(["ivfs"], args)
    assert cmd[cmd.index("--profile") + 1] == "profiles/slurm" and cmd[cmd.index("--rerun-triggers") + 1] == "mtime"
    assert cmd[-2:] == ["--config", "run=[ivfs]"] and cmd[cmd.index("--configfile") + 1] == "config/offline.yaml"
    assert "--config" not in full_run.snakemake_command(None, args)  # the default target: the config's run list
    # two overlays: one --configfile flag with both files (Snakemake keeps only the last of repeated flags, and a
    # run with the all-selector overlay lost the offline exclusions that way)
    both = full_run.snakemake_command(None, SimpleNamespace(**{**vars(args), "configfile": ["a.yaml", "b.yaml"]}))
    assert both.count("--configfile") == 1 and both[both.index("--configfile") + 1:][:2] == ["a.yaml", "b.yaml"]
    assert "--snakefile" not in cmd  # run in the repository
    plan = full_run.plan_command(["ivfs"], args)
    assert plan[3:5] == ["--dry-run", "--forceall"] and plan[5:] == cmd[3:]
    elsewhere = full_run.snakemake_command(None, SimpleNamespace(**vars(args), workdir=tmp_path / "elsewhere"))
    assert elsewhere[elsewhere.index("--snakefile") + 1] == str(ROOT / "Snakefile")


def test_a_part_failing_on_a_stale_lock_says_how_to_unlock(full_run, tmp_path):
    log = "Building DAG of jobs...\nLockException:\nError: Directory cannot be locked. Please make sure ..."
    assert "snakemake --unlock" in full_run.failure_hint(log, tmp_path)
    assert full_run.failure_hint("MissingInputException in rule x", tmp_path) is None
