"""`ufskit reference`: a finished run kept as the reference folder that `ufskit compare` reads by default."""

from __future__ import annotations

import importlib.util
import json
import re

import pandas as pd
import pytest
from test_compare import make_run

from conftest import ROOT
from ufskit import reference
from ufskit.cli import main
from ufskit.compare import output_files

CONFIGS = [ROOT / "config/config.yaml", ROOT / "config/offline.yaml"]


def full_run_csv(path):
    pd.DataFrame({"part": ["ivfs", "total"], "wall_s": [60.0, 61.0]}).to_csv(path, index=False)
    return path


def test_a_run_becomes_a_reference_it_is_identical_to(tmp_path, capsys):
    run = make_run(tmp_path / "results")
    (run / "ivfs/fig2.pdf").write_bytes(b"pdf")
    (run / "ivfs/metrics/rep0.parquet").write_bytes(b"parquet")
    out = tmp_path / "reference"
    args = ["reference", str(run), "--out", str(out), "--full-run", str(full_run_csv(tmp_path / "full_run.csv"))]
    assert main(args + [arg for c in CONFIGS for arg in ("--config", str(c))]) == 0
    kept = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert kept == ["benchmark/stats.csv", "full_run.csv", "ivfs/claims.csv", "ivfs/fig2.png", "ivfs/table1.csv",
                    "provenance.json", "scorecard.csv"]  # no PDF, parquet or per-run file
    record = json.loads((out / "provenance.json").read_text())
    assert len(record["git_commit"]) == 40 and record["machine"]["blas_kernel"] and record["date"]
    assert record["tolerances"]["knn_acc"] == {"absolute": 2.0}  # the config's, which compare then uses
    capsys.readouterr()
    assert main(["compare", str(run), str(out)]) == 0 and "overall: identical" in capsys.readouterr().out


def test_an_experiments_long_summary_is_per_run_data_a_reports_summary_a_table(tmp_path):
    """IVFS's summary.csv (its grids' means, 11 MB in the full run) stays out of the reference and of compare, as its
    metrics.parquet does; the benchmark's summary.csv (its ranks, no parquet beside it) is kept."""
    run = make_run(tmp_path / "results")
    (run / "ivfs/metrics.parquet").write_bytes(b"parquet")
    (run / "ivfs/summary.csv").write_text("dataset,method,metric,mean\nwine,LS,L2,1.5\n")
    (run / "benchmark/summary.csv").write_text("dataset,method,metric,value\nwine,LS,kmeans_acc,0.5\n")
    out = tmp_path / "reference"
    reference.build(run, out, configs=CONFIGS[:1])
    assert (out / "benchmark/summary.csv").is_file() and not (out / "ivfs/summary.csv").exists()
    assert "ivfs/summary.csv" not in output_files(run) and "benchmark/summary.csv" in output_files(run)


def test_a_rebuilt_reference_keeps_nothing_of_the_old_one(tmp_path):
    out = tmp_path / "reference"
    reference.build(make_run(tmp_path / "a"), out, configs=CONFIGS[:1])
    (out / "stale.csv").write_text("x\n1\n")
    reference.build(make_run(tmp_path / "b"), out, configs=CONFIGS[:1])
    assert not (out / "stale.csv").exists() and (out / "scorecard.csv").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".reference")] == []  # no staging left


def test_a_rebuilt_reference_keeps_the_references_kept_inside_it(tmp_path):
    """reference/ (the papers' run) is rebuilt without losing reference/all_selectors (another run's)."""
    out = tmp_path / "reference"
    reference.build(make_run(tmp_path / "a"), out, configs=CONFIGS[:1])
    report = tmp_path / "results/all_selectors"
    report.mkdir(parents=True)
    (report / "vs_random.csv").write_text("dataset,method\nwine,LS\n")
    reference.build(report, out / "all_selectors", configs=CONFIGS[:1])
    (out / "old_figures").mkdir()
    (out / "old_figures/fig.png").write_bytes(b"png")  # no provenance: the old run's, not a reference
    reference.build(make_run(tmp_path / "b"), out, configs=CONFIGS[:1])
    assert (out / "all_selectors/vs_random.csv").read_text() == "dataset,method\nwine,LS\n"
    assert (out / "all_selectors/provenance.json").is_file() and not (out / "old_figures").exists()
    assert (out / "scorecard.csv").exists()


def test_a_later_config_updates_an_earlier_ones_tolerances(tmp_path):
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text("scorecard:\n  tolerances:\n    knn_acc: {absolute: 3.0}\n")
    tolerances = reference.provenance(CONFIGS[:1] + [overlay], ROOT)["tolerances"]
    assert tolerances["knn_acc"] == {"absolute": 3.0} and tolerances["w11"] == {"relative": 0.25}


def test_the_provenance_names_the_commit_the_runs_parts_ran_on(tmp_path):
    commit = "b" * 40
    table = tmp_path / "full_run.csv"
    pd.DataFrame({"part": ["ivfs", "nrfs", "total"], "commit": [commit] * 3, "dirty": ["False"] * 3,
                  "resumed": ["True", "False", "True"]}).to_csv(table, index=False)
    record = reference.provenance(CONFIGS[:1], ROOT, table)
    assert record["git_commit"] == commit and record["git_modified"] is False  # the run's, not this checkout's
    assert len(record["built_with"]) == 40 and record["built_with"] != commit
    assert record["parts"] == [{"part": "ivfs", "commit": commit, "resumed": True},
                               {"part": "nrfs", "commit": commit, "resumed": False}]
    pd.DataFrame({"part": ["ivfs", "nrfs"], "commit": [commit, "c" * 40]}).to_csv(table, index=False)
    with pytest.raises(ValueError, match="ran on 2 commits"):
        reference.provenance(CONFIGS[:1], ROOT, table)
    assert "parts" not in reference.provenance(CONFIGS[:1], ROOT, full_run_csv(tmp_path / "old.csv"))  # no commits


def test_the_provenance_names_the_configs_without_the_building_machines_paths(tmp_path):
    """Configs given by absolute paths (the run's clone elsewhere) are named relative to the run's folder."""
    record = reference.provenance([ROOT / "config/config.yaml", ROOT / "config/offline.yaml"], ROOT, run_dir=ROOT)
    assert record["configs"] == ["config/config.yaml", "config/offline.yaml"]
    outside = tmp_path / "mine.yaml"
    outside.write_text((ROOT / "config/offline.yaml").read_text())
    assert reference.provenance([ROOT / "config/config.yaml", outside], ROOT)["configs"] == ["config.yaml", "mine.yaml"]


@pytest.mark.parametrize("problem", ["no scorecard", "too large", "no tolerances", "missing full run"])
def test_what_cannot_be_a_reference_is_refused(tmp_path, monkeypatch, problem):
    run, configs, full_run = make_run(tmp_path / "results"), CONFIGS[:1], None
    if problem == "no scorecard":
        (run / "scorecard.csv").unlink()
    elif problem == "too large":
        monkeypatch.setattr(reference, "MAX_MB", 1e-6)
    elif problem == "no tolerances":
        configs = [tmp_path / "bare.yaml"]
        configs[0].write_text("run: []\n")
    else:
        full_run = tmp_path / "nope.csv"
    match = {"no scorecard": "no scorecard.csv", "too large": "above the", "no tolerances": "scorecard.tolerances",
             "missing full run": "--full-run"}[problem]
    with pytest.raises(ValueError, match=match):
        reference.build(run, tmp_path / "reference", configs=configs, full_run=full_run)
    assert not (tmp_path / "reference").exists()


def test_a_benchmark_report_becomes_a_reference_of_its_own(tmp_path):
    """results/all_selectors/ (config/all_selectors.yaml: no scorecard) is kept as reference/all_selectors."""
    report = tmp_path / "results/all_selectors"
    report.mkdir(parents=True)
    pd.DataFrame({"dataset": ["wine"], "method": ["LS"], "metric": ["kmeans_acc"], "verdict": ["better"]}).to_csv(
        report / "vs_random.csv", index=False)
    (report / "vs_random.md").write_text("# Benchmark\n")
    (report / "cd.pdf").write_bytes(b"pdf")
    out = tmp_path / "reference/all_selectors"
    reference.build(report, out, configs=CONFIGS[:1])
    assert sorted(p.name for p in out.iterdir()) == ["provenance.json", "vs_random.csv", "vs_random.md"]


def load_script(name):
    """A script of benchmarks/ (they import their siblings)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def job_records_csv(path):
    pd.DataFrame({"rule": ["select_features", "select_features", "ivfs_table1"],
                  "wildcards": ["dataset=wine", "dataset=zoo", "report=ivfs"], "part": ["generic", "generic", "ivfs"],
                  "source": ["benchmark", "benchmark", "log"], "wall_seconds": [10.0, 30.5, 3.0],
                  "cpu_seconds": [9.0, 29.0, None], "max_rss_mb": [200.0, 300.0, None],
                  "benchmark": ["logs/times/select/e/wine.tsv", "logs/times/select/e/zoo.tsv", ""],
                  "finished": ["2026-11-28T10:00:00"] * 3}).to_csv(path, index=False)
    return path


def test_the_runs_own_time_files_are_shipped_with_the_job_times_made_from_its_record(tmp_path, monkeypatch):
    """results/full_run.csv and results/job_records.csv (benchmarks/full_run.py) go with the run without naming
    them; job_times.csv sums the record's benchmarked jobs per kind, as benchmarks/job_times.py does."""
    run = make_run(tmp_path / "results")
    full_run_csv(run / "full_run.csv")
    job_records_csv(run / "job_records.csv")
    out = tmp_path / "reference"
    reference.build(run, out, configs=CONFIGS[:1])
    assert {"full_run.csv", "job_records.csv", "job_times.csv"} <= {p.name for p in out.iterdir()}
    assert (out / "job_records.csv").read_text() == (run / "job_records.csv").read_text()
    times = pd.read_csv(out / "job_times.csv").set_index("kind")
    assert times.loc["select"].tolist() == [2, 40.5] and times.loc["total"].tolist() == [2, 40.5]
    # named files win over the run's own; a named file that is not there is refused
    other = job_records_csv(tmp_path / "other.csv")
    pd.read_csv(other).iloc[:1].to_csv(other, index=False)
    reference.build(run, out, configs=CONFIGS[:1], job_records=other)
    assert pd.read_csv(out / "job_times.csv").set_index("kind").loc["total"].tolist() == [1, 10.0]
    with pytest.raises(ValueError, match="--job-records"):
        reference.build(run, out, configs=CONFIGS[:1], job_records=tmp_path / "nope.csv")
    # the same sums as the script's, from the benchmark files themselves
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    job_times = load_script("job_times")
    for name, seconds in (("wine", 10.0), ("zoo", 30.5)):
        path = tmp_path / "run/logs/times/select/e" / f"{name}.tsv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"s\th:m:s\tmax_rss\n{seconds}\t0:00:10\t100\n")
    assert job_times.job_times([tmp_path / "run"]).equals(reference.job_times_table(pd.read_csv(run / "job_records.csv")))
    # the command line names it too
    assert main(["reference", str(run), "--out", str(out), "--job-records", str(other), "--config", str(CONFIGS[0])]) == 0
    assert len(pd.read_csv(out / "job_records.csv")) == 1


@pytest.fixture
def run_docs(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    return load_script("run_docs")


def synthetic_reference(folder, full_run):
    """A reference folder: a scorecard of two kernel UDFS numbers and a claim, provenance, and a full_run.csv
    written by benchmarks/full_run.py (two parts, one resumed)."""
    number = {"kind": "number", "paper": "kudfs", "base": "kudfs", "table": "T1", "method": "KernelUDFS",
              "metric": "kmeans_acc", "closest_reading": ""}
    folder.mkdir(parents=True)
    pd.DataFrame([{**number, "dataset": "wine", "reading": "main", "outcome": "within tolerance"},
                  {**number, "dataset": "iris", "reading": "main", "outcome": "outside tolerance"},
                  {"kind": "claim", "paper": "kudfs", "reading": "main", "outcome": "holds"}]).to_csv(
        folder / "scorecard.csv", index=False)
    (folder / "provenance.json").write_text(json.dumps(
        {"date": "2026-12-01", "git_commit": "fedcba9876543210", "git_modified": True,
         "machine": {"cores": 2, "cpu": "AMD EPYC", "blas_kernel": "Haswell"}, "tolerances": {}}))
    for part, wall, cpu, resumed in (("ivfs", 6660.0, 13000.0, True), ("kudfs", 174.0, 300.0, False)):
        full_run.write_table({"part": part, "experiments": part, "exit_code": 0, "wall_s": wall, "job_cpu_s": cpu,
                              "jobs": 10, "peak_rss_mb": 1024.0, "slowest_rules": "ivfs_select 100 min",
                              "resumed": resumed, "done_before": 3 if resumed else 0, "commit": "f" * 40,
                              "dirty": False, "cores": 2}, "2", folder)
    return folder


def test_the_readme_status_is_generated_from_a_shipped_reference(tmp_path, run_docs, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    folder = synthetic_reference(tmp_path / "reference", load_script("full_run"))
    block = run_docs.status_block(folder)
    head, _, table = block.partition("\n\n")
    assert head == ("The reference run (`reference/`, every row in `reference/scorecard.md`): 2026-12-01, commit "
                    "`fedcba9876` (with uncommitted changes), 1 h 54 min on 2 cores (AMD EPYC, OpenBLAS Haswell "
                    "kernel); 3 h 42 min of job CPU, 1 of its 2 parts resumed; how it compares with yours: "
                    "`ufskit compare results/`.")
    assert "| Kernel UDFS (Liu & Wang) | 1 of 2 (0 not compared) | 1 / 0 / 0 | [kudfs-paper.md](docs/fidelity/kudfs-paper.md) |" \
        in table.splitlines()
    readme = run_docs.rewritten(folder)["README.md"]  # the page as run_docs writes it
    assert f"<!-- run:status -->\n{block}\n<!-- /run:status -->" in readme
    # the full-run table of docs/performance.md from the same file: job CPU, the resumed part, the commit
    lines = run_docs.full_run_table(pd.read_csv(folder / "full_run.csv", keep_default_na=False)).splitlines()
    assert lines[0] == "| part | wall | job CPU | jobs | peak RSS | slowest rules (job-minutes) |"
    assert lines[2] == "| IVFS (resumed) | 1 h 51 min | 3 h 37 min | 10 | 1.00 GB | ivfs_select 100 |"
    assert lines[4] == "| **total** | **1 h 54 min** | **3 h 42 min** | **20** | **1.00 GB** |  |"
    assert "every part at commit `ffffffffff`" in lines[-1] and "1 part(s) resumed" in lines[-1]


def test_without_a_scorecard_the_readme_status_says_the_reference_is_not_shipped(tmp_path, run_docs):
    (tmp_path / "reference/all_selectors").mkdir(parents=True)
    (tmp_path / "reference/all_selectors/provenance.json").write_text("{}")
    block = run_docs.status_block(tmp_path / "reference")
    assert block.startswith("The reference run is not shipped yet: `reference/`") and "has no scorecard" in block
    assert "(it holds only `all_selectors/`)" in block and "[docs/results.md](docs/results.md)" in block
    assert "| Kernel UDFS (Liu & Wang) | [kudfs-paper.md](docs/fidelity/kudfs-paper.md) |" in block
    assert not re.search(r"\d+ of \d+", block)  # no count of a run it does not have
    assert "<!-- run:status -->\n" + block in run_docs.rewritten(tmp_path / "reference")["README.md"]


def test_the_readmes_status_is_what_the_repositorys_reference_gives(run_docs):
    """README.md's status block equals run_docs' block from reference/ as it is now (run benchmarks/run_docs.py
    when this fails): "not shipped yet" until reference/ holds a scorecard, its counts after."""
    readme = (ROOT / "README.md").read_text()
    shown = re.search(r"<!-- run:status -->\n(.*)\n<!-- /run:status -->", readme, re.S).group(1)
    assert shown == run_docs.status_block(ROOT / "reference"), "README's status is stale: run benchmarks/run_docs.py"



def test_a_random_draw_is_priced_from_the_benchmarks_random_jobs_only(tmp_path, run_docs):
    # other batched jobs (a tuned grid, IVFS) are not Random draws; a run without Random jobs finds them in the
    # run whose jobs it reused
    records = ["rule,wildcards,cpu_seconds",
               'run_batched_method,"experiment=tuned_lowdim, dataset=wine, method=NDFS, shard=all",500.0',
               'select_features,"experiment=benchmark_lowdim, dataset=wine, method=Random, params=default",9.0']
    own, shared = tmp_path / "own", tmp_path / "shared"
    own.mkdir(), shared.mkdir()
    (own / "job_records.csv").write_text("\n".join(records) + "\n")
    (shared / "job_records.csv").write_text("\n".join(records + [
        'run_batched_method,"experiment=benchmark_lowdim, dataset=wine, method=Random, shard=all",40.0',
        'run_batched_method,"experiment=benchmark_highdim, dataset=ORL, method=Random, shard=all",80.0']) + "\n")
    assert run_docs.draw_seconds([own], 20) is None
    assert run_docs.draw_seconds([own, shared], 20) == pytest.approx(120.0 / (2 * 20))
