"""benchmarks/job_times.py: the job time of a run made of several invocations, from its benchmark files."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import ROOT


def test_job_seconds_are_summed_per_kind_with_a_total(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from job_times import job_times

    header = "s\th:m:s\tmax_rss\n"
    for rel, seconds in {"select/e/wine/LS/default/rep0.tsv": 2.5, "select/e/zoo/LS/default/rep0.tsv": 2.0,
                         "evaluate/e/wine/LS/default/rep0.tsv": 4.0}.items():
        path = tmp_path / "logs/times" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header + f"{seconds}\t0:00:0{int(seconds)}\t100\n")
    table = job_times([tmp_path]).set_index("kind")
    assert table.loc["select"].tolist() == [2, 4.5] and table.loc["evaluate"].tolist() == [1, 4.0]
    assert table.loc["total"].tolist() == [3, 8.5] and table.index[0] == "select"
    with pytest.raises(ValueError, match="no benchmark file"):
        job_times([tmp_path / "empty"])


RUN_LOG = """\
Select jobs to execute...
Execute 2 jobs...

[Sat Nov 28 21:16:42 2026]
localrule select_features:
    input: resources/prepared/zscore/wine.npz
    output: results/e/selections/wine/LS/k=5/rep0.npz
    log: logs/select/e/wine/LS/k=5/rep0.log
    jobid: 7
    benchmark: logs/times/select/e/wine/LS/k=5/rep0.tsv
    reason: Missing output files: results/e/selections/wine/LS/k=5/rep0.npz
    wildcards: experiment=e, dataset=wine, method=LS, params=k=5, rep=0
    resources: tmpdir=/tmp, mem_mb=4000
Shell command: None

[Sat Nov 28 21:16:43 2026]
localrule summary_table:
    input: results/e/metrics.parquet
    output: results/e/summary.csv, results/e/summary.md
    log: logs/summary/e.log
    jobid: 3
    reason: Missing output files: results/e/summary.csv
    wildcards: experiment=e
    resources: tmpdir=/tmp, mem_mb=2000
Shell command: None
Select jobs to execute...
[Sat Nov 28 21:16:47 2026]
Finished jobid: 3 (Rule: summary_table)
1 of 3 steps (33%) done

[Sat Nov 28 21:16:48 2026]
localrule scorecard:
    input: results/e/summary.csv
    output: results/scorecard.csv
    log: logs/scorecard.log
    jobid: 1
    reason: Missing output files: results/scorecard.csv
    resources: tmpdir=/tmp, mem_mb=2000
Shell command: None
[Sat Nov 28 21:16:52 2026]
Finished jobid: 7 (Rule: select_features)
2 of 3 steps (67%) done
"""


def write_benchmark(run, rel, rows):
    path = run / "logs/times" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("s\th:m:s\tmax_rss\tmax_vms\tcpu_time\n" + "".join(f"{s}\t0:00:00\t{rss}\t1.0\t{cpu}\n"
                                                                   for s, rss, cpu in rows))


def test_a_run_log_gives_each_jobs_rule_wildcards_benchmark_and_times(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from job_times import parse_jobs

    jobs = {j["jobid"]: j for j in parse_jobs(RUN_LOG)}
    assert list(jobs) == [7, 3, 1]
    select, summary, card = jobs[7], jobs[3], jobs[1]
    assert select["rule"] == "select_features" and select["wildcards"] == "experiment=e, dataset=wine, method=LS, params=k=5, rep=0"
    assert select["benchmark"] == "logs/times/select/e/wine/LS/k=5/rep0.tsv" and select["threads"] == 1
    assert (select["end"] - select["start"]).total_seconds() == 10
    assert summary["output"] == ["results/e/summary.csv", "results/e/summary.md"] and summary["benchmark"] == ""
    assert (summary["end"] - summary["start"]).total_seconds() == 4
    assert card["input"] == ["results/e/summary.csv"] and card["wildcards"] == "" and card["end"] is None  # not finished


def test_the_per_job_record_joins_benchmark_files_and_the_logs_light_jobs(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from job_times import RECORD_COLUMNS, job_records, main

    write_benchmark(tmp_path, "select/e/wine/LS/k=5/rep0.tsv", [(9.5, 210.0, 8.25)])
    write_benchmark(tmp_path, "evaluate/e/zoo/LS/k=5/rep0.tsv", [(3.0, 100.0, 2.0), (5.0, 300.0, 4.0)])  # two repeats
    (tmp_path / "run.log").write_text(RUN_LOG)
    records = job_records(tmp_path, [("part1", tmp_path / "run.log")], repo=ROOT)
    assert list(records.columns) == RECORD_COLUMNS
    rows = records.set_index("rule")
    select = rows.loc["select_features"]
    assert (select["part"], select["source"], select["wall_seconds"], select["cpu_seconds"], select["max_rss_mb"]) == (
        "part1", "benchmark", 9.5, 8.25, 210.0)
    assert select["wildcards"] == "experiment=e, dataset=wine, method=LS, params=k=5, rep=0"
    evaluate = rows.loc["evaluate_selection"]  # no log names it: run outside these invocations
    assert (evaluate["part"], evaluate["wall_seconds"], evaluate["cpu_seconds"]) == ("", 4.0, 3.0)
    assert evaluate["wildcards"] == "experiment=e, dataset=zoo, method=LS, params=k=5, rep=0"  # from the path
    summary = rows.loc["summary_table"]
    assert (summary["source"], summary["wall_seconds"], summary["benchmark"]) == ("log", 4.0, "")
    assert pd.isna(summary["cpu_seconds"]) and "scorecard" not in rows.index  # unfinished jobs are not recorded

    out = tmp_path / "results/job_records.csv"
    assert main([str(tmp_path), "--records", str(out), "--log", str(tmp_path / "run.log")]) == 0
    assert len(pd.read_csv(out)) == 3


def test_a_benchmark_file_two_rules_may_write_is_kept_and_its_log_names_the_rule(tmp_path, monkeypatch):
    """run_batched_method and nrfs_synthetic_batch share one benchmark pattern (told apart by config-dependent
    wildcard constraints): the file is not dropped as unmatched, and the run's log says which rule wrote it."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    from job_times import job_records
    from slurm_resources import benchmark_patterns, read_benchmarks, split_rules

    write_benchmark(tmp_path, "batched/e/wine/Random/all.tsv", [(30.0, 400.0, 28.0)])
    write_benchmark(tmp_path, "batched/e/zoo/Random/all.tsv", [(20.0, 300.0, 19.0)])
    frame, unmatched = read_benchmarks([tmp_path], benchmark_patterns(ROOT))
    assert unmatched == [] and set(frame["rule"]) == {"nrfs_synthetic_batch|run_batched_method"}
    assert split_rules(frame["rule"].iat[0]) == ["nrfs_synthetic_batch", "run_batched_method"]
    assert frame["wildcards"].iat[0] == "experiment=e, dataset=wine, method=Random, shard=all"
    log = tmp_path / "run.log"
    log.write_text("[Sat Nov 28 21:16:42 2026]\nlocalrule run_batched_method:\n    output: results/e/x.parquet\n"
                   "    jobid: 4\n    benchmark: logs/times/batched/e/wine/Random/all.tsv\n"
                   "    wildcards: experiment=e, dataset=wine, method=Random, shard=all\n"
                   "[Sat Nov 28 21:17:12 2026]\nFinished jobid: 4 (Rule: run_batched_method)\n")
    records = job_records(tmp_path, [("p", log)], repo=ROOT).set_index("benchmark")
    assert records.at["logs/times/batched/e/wine/Random/all.tsv", "rule"] == "run_batched_method"
    assert records.at["logs/times/batched/e/zoo/Random/all.tsv", "rule"] == "nrfs_synthetic_batch|run_batched_method"
    assert records.at["logs/times/batched/e/wine/Random/all.tsv", "cpu_seconds"] == 28.0
