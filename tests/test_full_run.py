"""benchmarks/full_run.py: which parts a call runs, and a resumed run keeping earlier parts' rows."""

from __future__ import annotations

import importlib.util
import sys
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml

from conftest import ROOT


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


@pytest.fixture(scope="module")
def config():
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())


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


def test_each_part_rewrites_the_table_keeping_earlier_parts_and_one_total(full_run, tmp_path):
    def row(part, wall_s, jobs, rss, code=0):
        return {"part": part, "experiments": part, "exit_code": code, "wall_s": wall_s, "jobs": jobs,
                "peak_rss_mb": rss, "slowest_rules": "r 1 min"}

    full_run.write_table(row("a", 600.0, 10, 100.0), "2", tmp_path)
    full_run.write_table(row("b", 3300.0, 5, 300.0, code=1), "2", tmp_path)
    table = full_run.write_table(row("b", 3000.0, 7, 200.0), "2", tmp_path)  # b measured again
    assert list(table["part"]) == ["a", "b", "total"]
    total = table.set_index("part").loc["total"]
    assert (total["wall_s"], total["jobs"], total["peak_rss_mb"], total["exit_code"]) == (3600.0, 17, 200.0, 0)
    assert list(table["wall"]) == ["10.0 min", "50.0 min", "1 h 0 min"]
    assert pd.read_csv(tmp_path / "full_run.csv")["part"].tolist() == ["a", "b", "total"]
    assert "| b | b | 0 | 7 | 200.0 |" in (tmp_path / "full_run.md").read_text()


def test_extra_snakemake_arguments_reach_every_part(full_run):
    args = SimpleNamespace(cores="2", configfile=["config/offline.yaml"],
                           snakemake_args="--profile profiles/slurm --rerun-triggers mtime")
    cmd = full_run.snakemake_command(["ivfs"], args)
    assert cmd[cmd.index("--profile") + 1] == "profiles/slurm" and cmd[cmd.index("--rerun-triggers") + 1] == "mtime"
    assert cmd[-2:] == ["--config", "run=[ivfs]"] and cmd[cmd.index("--configfile") + 1] == "config/offline.yaml"
    assert "--config" not in full_run.snakemake_command(None, args)  # the default target: the config's run list
