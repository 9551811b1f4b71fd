"""benchmarks/simulate_scaling.py: a run's recorded jobs list-scheduled on N cores over Snakemake's plan, on a
small DAG whose wall times are worked out by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import ROOT


@pytest.fixture
def sim(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import simulate_scaling

    return simulate_scaling


def block(rule, output, inputs=(), wildcards="", benchmark="", threads=1, jobid=0):
    """One job as a dry run prints it (Snakemake 9)."""
    lines = ["", "[Sat Nov 28 21:11:21 2026]", f"rule {rule}:"]
    if inputs:
        lines.append(f"    input: {', '.join(inputs)}")
    lines += [f"    output: {output}", f"    log: logs/{rule}/{jobid}.log", f"    jobid: {jobid}"]
    if benchmark:
        lines.append(f"    benchmark: {benchmark}")
    lines.append("    reason: Forced execution")
    if wildcards:
        lines.append(f"    wildcards: {wildcards}")
    if threads > 1:
        lines.append(f"    threads: {threads}")
    lines += ["    resources: tmpdir=/tmp, mem_mb=2000", "Shell command: None"]
    return "\n".join(lines)


# A chain a (10 s) -> b (20 s) -> c (5 s), and a fan-out: f0 (1 s) -> eight jobs of 6 s -> g (2 s); printed in the
# order a, b, c, f0, fan, g (the DAG's order: the chain's jobs go first whenever they are ready). By hand:
# - 1 core: the sum, 86 s;
# - 2 cores: a 0-10 | f0 0-1, fan1 1-7, fan2 7-13; b 10-30 (ready at 10, before the fan jobs); fan3 13-19, fan4
#   19-25, fan5 25-31; c 30-35; fan6 31-37, fan7 35-41, fan8 37-43; g 43-45: 45 s;
# - 4 cores: a 0-10, f0 0-1, fan1-3 1-7, fan4-6 7-13, b 10-30, fan7-8 13-19, g 19-21, c 30-35: 35 s, the chain;
# - the critical path: a, b, c, 35 s (the fan-out's chain is 1 + 6 + 2 = 9 s).
SECONDS = {"a": 10.0, "b": 20.0, "c": 5.0, "f0": 1.0, **{f"fan{i}": 6.0 for i in range(1, 9)}, "g": 2.0}


def planted_plan() -> str:
    fan = [f"out/fan{i}.txt" for i in range(1, 9)]
    blocks = [block("chain", "out/a.txt", wildcards="step=a", jobid=1),
              block("chain", "out/b.txt", ["out/a.txt"], wildcards="step=b", jobid=2),
              block("chain", "out/c.txt", ["out/b.txt", "data/raw.csv"], wildcards="step=c", jobid=3),
              block("fan_root", "out/f0.txt", benchmark="logs/times/fan_root/f0.tsv", jobid=4)]
    blocks += [block("fan", path, ["out/f0.txt"], wildcards=f"i={i}", benchmark=f"logs/times/fan/{i}.tsv", jobid=4 + i)
               for i, path in enumerate(fan, 1)]
    blocks.append(block("gather", "out/g.txt", fan, jobid=13))
    return "\n".join(blocks) + "\n"


def planted_records() -> pd.DataFrame:
    rows = [{"rule": "chain", "wildcards": f"step={s}", "benchmark": "", "wall_seconds": SECONDS[s], "source": "log"}
            for s in "abc"]
    rows.append({"rule": "fan_root", "wildcards": "", "benchmark": "logs/times/fan_root/f0.tsv", "wall_seconds": 1.0,
                 "source": "benchmark"})
    rows += [{"rule": "fan", "wildcards": f"i={i}", "benchmark": f"logs/times/fan/{i}.tsv", "wall_seconds": 6.0,
              "source": "benchmark"} for i in range(1, 9)]
    rows.append({"rule": "gather", "wildcards": "", "benchmark": "", "wall_seconds": 2.0, "source": "log"})
    return pd.DataFrame(rows)


def test_the_plan_gives_the_dag_and_the_record_each_jobs_seconds(sim):
    jobs = sim.parse_jobs(planted_plan())
    assert [j["jobid"] for j in jobs] == list(range(1, 14))
    deps = sim.dag(jobs)
    assert deps[0] == set() and deps[1] == {0} and deps[2] == {1}  # data/raw.csv is made by no job
    assert deps[12] == set(range(4, 12)) and all(deps[k] == {3} for k in range(4, 12))
    seconds, sources = sim.durations(jobs, planted_records())
    assert seconds == list(SECONDS.values()) and set(sources) == {"record"}


@pytest.mark.parametrize(("cores", "wall"), [(1, 86.0), (2, 45.0), (4, 35.0), (128, 35.0)])
def test_list_scheduling_gives_the_wall_times_worked_out_by_hand(sim, cores, wall):
    jobs = sim.parse_jobs(planted_plan())
    seconds, _ = sim.durations(jobs, planted_records())
    assert sim.makespan(seconds, sim.dag(jobs), cores) == wall


def test_the_critical_path_is_the_chain(sim):
    jobs = sim.parse_jobs(planted_plan())
    seconds, _ = sim.durations(jobs, planted_records())
    length, path = sim.critical_path(seconds, sim.dag(jobs))
    assert length == 35.0 and [jobs[i]["wildcards"] for i in path] == ["step=a", "step=b", "step=c"]


def test_a_job_of_several_threads_holds_that_many_cores(sim):
    """Two independent jobs of 10 s, the first on 2 threads: on 2 cores they cannot overlap (20 s); on 3 they do."""
    jobs = sim.parse_jobs(block("wide", "x.txt", threads=2, jobid=1) + "\n" + block("narrow", "y.txt", jobid=2))
    assert [j["threads"] for j in jobs] == [2, 1]
    deps = sim.dag(jobs)
    assert sim.makespan([10.0, 10.0], deps, 2, [2, 1]) == 20.0
    assert sim.makespan([10.0, 10.0], deps, 3, [2, 1]) == 10.0
    assert sim.makespan([10.0, 10.0], deps, 1, [2, 1]) == 20.0  # at most the cores there are


def test_jobs_the_record_lacks_take_their_rules_mean_else_the_assumed_seconds(sim):
    jobs = sim.parse_jobs(planted_plan())
    records = planted_records()
    records = records[~records["wildcards"].isin(["i=3", "step=b"]) & (records["rule"] != "gather")]
    seconds, sources = sim.durations(jobs, records, unrecorded=4.0)
    assert seconds[1] == pytest.approx(7.5) and sources[1] == "rule mean"  # chain: (10 + 5) / 2
    assert seconds[6] == 6.0 and sources[6] == "rule mean"
    assert seconds[12] == 4.0 and sources[12] == "assumed"
    text = sim.report(jobs, records, [2, 4], unrecorded=4.0, run=(50.0, 2))
    assert "13 jobs" in text and "10 from the record, 2 at their rule's mean, 1 assumed at 4 s" in text
    assert "(rules: chain, fan, gather)" in text


def test_the_report_prints_the_predicted_walls_the_measured_one_and_the_critical_path(sim, tmp_path):
    jobs = sim.parse_jobs(planted_plan())
    (tmp_path / "results").mkdir()
    pd.DataFrame({"part": ["default_target", "total"], "wall_s": [50.0, 50.0], "cores": [2, None]}).to_csv(
        tmp_path / "results/full_run.csv", index=False)
    assert sim.measured(tmp_path) == (50.0, 2)
    text = sim.report(jobs, planted_records(), [4, 128], run=sim.measured(tmp_path))
    assert "| 2 | 45.0 s (45 s) | 1.9 |" in text  # the run's own cores are added
    assert "| 4 | 35.0 s (35 s) | 2.5 | 35.0 s |" in text and "| 128 | 35.0 s (35 s) |" in text
    assert "measured (results/full_run.csv): 50.0 s (50 s) on 2 cores; predicted 45 s, -10.0 %" in text
    assert "critical path: 35.0 s (35 s), 3 jobs" in text
    assert text.rstrip().endswith("| 3 | chain | step=c | 5.0 |")


def test_the_script_runs_on_a_saved_plan_and_a_results_folder(sim, tmp_path, capsys):
    (tmp_path / "results").mkdir()
    planted_records().to_csv(tmp_path / "results/job_records.csv", index=False)
    (tmp_path / "plan.txt").write_text(planted_plan())
    assert sim.main([str(tmp_path), "--plan", str(tmp_path / "plan.txt"), "--cores", "2", "4"]) == 0
    out = capsys.readouterr().out
    assert "| 2 | 45.0 s (45 s) |" in out and "measured" not in out  # no full_run.csv: nothing measured


def test_a_parts_saved_plan_is_set_beside_that_parts_measured_wall(sim, tmp_path, capsys):
    (tmp_path / "results").mkdir()
    planted_records().to_csv(tmp_path / "results/job_records.csv", index=False)
    pd.DataFrame({"part": ["kudfs", "ivfs", "total"], "wall_s": [50.0, 900.0, 950.0], "cores": [2, 2, None]}).to_csv(
        tmp_path / "results/full_run.csv", index=False)
    plan = tmp_path / "kudfs-20261129-002609.plan"
    plan.write_text(planted_plan())
    assert sim.plan_part(plan) == "kudfs" and sim.plan_part(tmp_path / "plan.txt") == "total"
    assert sim.plan_part(tmp_path / "default_target-20261129-075156.plan") == "total"  # it plans the whole run
    assert sim.measured(tmp_path, "ivfs") == (900.0, 2) and sim.measured(tmp_path, "nope") is None
    assert sim.main([str(tmp_path), "--plan", str(plan), "--cores", "4"]) == 0
    assert "measured (results/full_run.csv, part kudfs): 50.0 s (50 s) on 2 cores; predicted 45 s, -10.0 %" in \
        capsys.readouterr().out


def test_cpu_seconds_replace_wall_seconds_where_a_benchmark_file_has_them(sim):
    """A record made on a loaded machine: each fan job waited for a core (6 s of wall, 3 s of CPU); with --seconds
    cpu the fan jobs last 3 s, the chain's jobs (log times only) keep their walls."""
    jobs = sim.parse_jobs(planted_plan())
    records = planted_records()
    records["cpu_seconds"] = [None, None, None, 1.0, *[3.0] * 8, None]
    seconds, _ = sim.durations(jobs, records, kind="cpu")
    assert seconds == [10.0, 20.0, 5.0, 1.0, *[3.0] * 8, 2.0]
    # 2 cores: a 0-10 | f0 0-1, fans 1-4, 4-7, 7-10; b 10-30 | fans 10-13 ... 22-25, g 25-27; c 30-35
    assert sim.makespan(seconds, sim.dag(jobs), 2) == 35.0
    assert "cpu seconds" in sim.report(jobs, records, [2], kind="cpu")


def test_a_shard_cut_by_repetition_after_the_record_takes_its_share_of_the_whole(sim):
    shard = "logs/times/batched/ivfs/RELATHE/IVFS-linf/loss=linf_subset_features=0.5"
    cut = [(0, 1), (2, 3), (4, 4)]
    plan = "\n".join(block("run_batched_method", f"out/{a}.parquet", benchmark=f"{shard}_reps{a}-{b}.tsv", jobid=k)
                     for k, (a, b) in enumerate(cut, 1)) + "\n"
    records = pd.DataFrame([{"rule": "run_batched_method", "wildcards": "", "benchmark": f"{shard}.tsv",
                             "wall_seconds": 1000.0, "source": "benchmark"}])
    seconds, sources = sim.durations(sim.parse_jobs(plan), records)
    assert seconds == [400.0, 400.0, 200.0] and sources == ["share"] * 3  # 2, 2 and 1 of the 5 repetitions
    assert "3 a share of their whole shard's" in sim.report(sim.parse_jobs(plan), records, [2])
