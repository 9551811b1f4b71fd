"""The user's documentation: generated pages are up to date, relative links lead to files that exist."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys

import pandas as pd
import pytest

from conftest import ROOT
from ufskit.papers import scored
from ufskit.protocols import load_config

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")  # [text](target)


def load(path):
    """The module at ``path`` (the docs' generators are scripts, not package modules)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def relative_links(page):
    """The relative link targets of a markdown page, without their #anchors (code blocks left out)."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    targets = (m.group(1).split("#")[0] for m in LINK.finditer(text))
    return [t for t in targets if t and not re.match(r"[a-z]+:", t)]


def test_selectors_page_is_generated_from_the_classes():
    """The page equals the script's output for the papers it names (a paper folder added since leaves it valid:
    rerunning the script adds its settings); every paper it names is registered."""
    render = load(ROOT / "docs/render_selectors.py")
    page = (ROOT / "docs/selectors.md").read_text()
    papers = render.page_papers(page)
    assert papers and set(papers) <= set(scored()), papers
    assert page == render.render(papers), "docs/selectors.md is out of date: run python docs/render_selectors.py"


def test_selectors_page_lists_every_selector_with_its_constraints():
    from ufskit.selectors import SELECTORS

    render = load(ROOT / "docs/render_selectors.py")
    page = (ROOT / "docs/selectors.md").read_text()
    for name in SELECTORS:
        assert f"\n## {name}\n" in page, name
    # the papers' settings come from their folders' protocols/full.yaml: here LaplacianScore's k = 5
    shown = render.page_papers(page)
    users = [p for p in shown if any(m["selector"] == "LaplacianScore" and (m.get("params") or {}).get("n_neighbors") == 5
                                     for e in load_config(ROOT)["experiments"].values() if e["paper"] == p
                                     for m in e["methods"].values())]
    assert users, "no paper of the page runs LaplacianScore with n_neighbors 5"
    assert (f"| `n_neighbors` | `'auto'` | one of 'auto'; an int in the range [1, inf) | `5` ({', '.join(sorted(users))}) |"
            in page)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page):
    missing = [t for t in relative_links(page) if not (page.parent / t).exists()]
    assert not missing, f"{page.relative_to(ROOT)} links to missing files: {missing}"


def test_readme_library_example_runs():
    example = re.search(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    proc = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ranking, accuracy = proc.stdout.rsplit("\n", 2)[-3:-1]
    assert ranking.startswith("[") and 0.8 < float(accuracy) <= 1.0, proc.stdout


def test_the_link_check_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("[ok](page.md#top) [web](https://example.org) [gone](docs/nothing.md)\n"
                    "```\n[in code](not/checked.md)\n```\n")
    assert relative_links(page) == ["page.md", "docs/nothing.md"]


def test_run_tables_are_rewritten_from_the_runs_own_files(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    full_run, run_docs = load(ROOT / "benchmarks/full_run.py"), load(ROOT / "benchmarks/run_docs.py")
    for part, wall, jobs, rss, slowest in [("ils", 186.0, 122, 266.0, "ils_train_size_study 2 min"),
                                           ("ivfs", 6660.0, 428, 1259.5, "ivfs_select 144 min, ivfs_evaluate 71 min")]:
        row = {"part": part, "experiments": part, "exit_code": 0, "wall_s": wall, "jobs": jobs, "peak_rss_mb": rss,
               "slowest_rules": slowest}
        full_run.write_table(row, "2", out=tmp_path)
    table = run_docs.full_run_table(pd.read_csv(tmp_path / "full_run.csv", keep_default_na=False))
    assert table.splitlines()[2:] == ["| IVFS | 1 h 51 min | 428 | 1.23 GB | ivfs_select 144, ivfs_evaluate 71 |",
                                      "| ILS | 3.1 min | 122 | 0.26 GB | ils_train_size_study 2 |",
                                      "| **total** | **1 h 54 min** | **550** | **1.23 GB** |  |"]
    full_run.write_table({"part": "benchmark", "experiments": "benchmark", "exit_code": 1, "wall_s": 12.0, "jobs": 0,
                          "peak_rss_mb": float("nan"), "slowest_rules": ""}, "2", out=tmp_path)  # no job ran
    table = run_docs.full_run_table(pd.read_csv(tmp_path / "full_run.csv", keep_default_na=False))
    assert "| benchmark | 0.2 min | 0 |  |  |" in table.splitlines()

    number = {"kind": "number", "paper": "kudfs", "base": "kudfs", "table": "T1", "method": "KernelUDFS",
              "metric": "kmeans_acc"}
    card = pd.DataFrame([
        {**number, "dataset": "wine", "reading": "main", "outcome": "outside tolerance", "closest_reading": "alt"},
        {**number, "dataset": "wine", "reading": "alt", "outcome": "within tolerance", "closest_reading": "alt"},
        {**number, "dataset": "iris", "reading": "main", "outcome": "within tolerance", "closest_reading": ""},
        {**number, "dataset": "heart", "reading": "main", "outcome": "not in the mirror", "closest_reading": ""},
        # readings too close to call: the number counts under its main row, as in the scorecard's overview
        {**number, "dataset": "zoo", "reading": "main", "outcome": "within tolerance",
         "closest_reading": "too close to call"},
        {**number, "dataset": "zoo", "reading": "alt", "outcome": "outside tolerance",
         "closest_reading": "too close to call"},
        {"kind": "claim", "paper": "kudfs", "reading": "main", "outcome": "partly holds"},
    ])
    rows = run_docs.scorecard_table(card).splitlines()
    assert "| Kernel UDFS (Liu & Wang) | 2 of 4 | 1 | 3 of 4 | 0 / 1 / 0 |" in rows
    assert not [row for row in rows if row.startswith("| IVFS")]  # a paper without rows is not the run's

    (tmp_path / "provenance.json").write_text(json.dumps(
        {"date": "2026-11-27", "git_commit": "0123456789abcdef", "machine": {"cores": 2, "cpu": "AMD EPYC",
                                                                          "blas_kernel": "Haswell"}}))
    status = run_docs.status_table(card, tmp_path).splitlines()
    assert status[0].startswith("The reference run (`reference/`") and "2026-11-27, commit `0123456789`, 1 h 54 min" \
        " on 2 cores (AMD EPYC, OpenBLAS Haswell kernel)" in status[0]
    assert "| Kernel UDFS (Liu & Wang) | 2 of 4 (1 not compared) | 0 / 1 / 0 | [kudfs-paper.md](docs/fidelity/kudfs-paper.md) |" \
        in status

    for page, block, _, _ in run_docs.BLOCKS:  # the committed pages hold their blocks
        text = (ROOT / page).read_text()
        assert run_docs.replace_block(text, block, "new") != text
    with pytest.raises(ValueError, match="no block <!-- run:missing -->"):
        run_docs.replace_block("text", "missing", "new")


def test_the_pages_hold_what_the_shipped_reference_gives(monkeypatch):
    """README's status, the full-run and scorecard tables: regenerated from reference/, nothing differs."""
    if not (ROOT / "reference" / "provenance.json").exists():
        assert "is not shipped yet" in (ROOT / "README.md").read_text()  # and the README says so
        pytest.skip("no reference/ folder yet: the README's status says so")
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    run_docs = load(ROOT / "benchmarks/run_docs.py")
    for page, text in run_docs.rewritten(ROOT / "reference").items():
        assert text == (ROOT / page).read_text(), f"{page} differs from what reference/ gives: run benchmarks/run_docs.py"


def test_the_toy_papers_file_list_is_its_folder():
    """docs/extending.md's worked example lists every file of tests/papers/toy/, and no other."""
    page = (ROOT / "docs/extending.md").read_text()
    block = re.search(r"<!-- toy-paper-files -->\n```\n(.*?)```\n<!-- /toy-paper-files -->", page, flags=re.S)
    listed = {line.split()[0] for line in block.group(1).splitlines() if line.strip()}
    folder = ROOT / "tests/papers/toy"
    held = {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and not any(part.startswith((".", "__pycache__")) for part in p.relative_to(folder).parts)}
    assert listed == held


def test_readme_sets_up_a_venv_in_two_commands_that_ci_runs_on_debians_python():
    readme = (ROOT / "README.md").read_text()
    commands = re.findall(r"^python3 -m venv \.venv && .*$", readme, re.M)
    assert len(commands) == 2, commands
    assert commands[0].endswith(".venv/bin/snakemake --cores 2 --configfile config/quick.yaml")
    assert commands[1].endswith('.venv/bin/python -m pytest -m "not workflow"')
    assert "apt-get install -y python3-venv" in readme and "from the root of the clone" in readme
    assert len(readme.splitlines()) < 250
    ci = (ROOT / ".ci/readme-commands").read_text()
    assert "grep -E '^python3 -m venv \\.venv && ' README.md" in ci and 'PATH="/usr/bin:/bin"' in ci
    assert ".ci/readme-commands" in (ROOT / ".ci/run").read_text()


def test_the_all_selector_table_counts_verdicts_and_majorities(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    run_docs = load(ROOT / "benchmarks/run_docs.py")
    verdicts = {"LS": ["better", "better", "worse"], "SPEC": ["better", "not distinguishable", "worse"],
                "Variance": ["better", "better", "better"]}
    # a shipped vs_random.csv's columns (no random_sd: run_docs recovers it from t and judges again)
    shift = {"better": 1.0, "not distinguishable": 0.01, "worse": -1.0}
    table = pd.DataFrame([{"family": "f", "dataset": d, "method": m, "metric": "kmeans_acc", "value": 0.5 + shift[v],
                           "runs": 1, "random": 0.5, "draws": 20, "random_p05": 0.4, "random_p95": 0.6,
                           "percentile": 1.0 if v == "better" else 0.0 if v == "worse" else 0.5,
                           "t": 100 * shift[v], "p": 0.9 if v == "not distinguishable" else 1e-9, "p_holm": 1.0,
                           "verdict": "(the former family's)"}
                          for m, vs in verdicts.items() for d, v in zip(["wine", "zoo", "wdbc"], vs)])
    (tmp_path / "provenance.json").write_text(json.dumps(
        {"date": "2026-11-28", "git_commit": "0123456789abcdef", "machine": {"cores": 2, "cpu": "AMD EPYC",
                                                                          "blas_kernel": "Haswell"}}))
    text = run_docs.vs_random_table(table, tmp_path)
    assert text.startswith("Run of 2026-11-28, commit `0123456789`, run time not recorded on 2 cores") \
        and "3 datasets" in text
    assert "| LS | **2 / 0 / 1** · 1.00 |" in text and "| SPEC | 1 / 1 / 1 · 0.50 |" in text
    assert "| Variance | **3 / 0 / 0** · 1.00 |" in text  # the median percentile beside the counts
    # Variance is trivial: its majority is shown but not counted among the selectors'
    assert "on a majority of datasets: K-means ACC 1 of 2 (with no selector better than chance, a majority of 3 " \
        "has probability 2e-03)." in text
    assert "Better than Random across the datasets (Wilcoxon, Holm over the 3 methods): K-means ACC 0" in text
    assert "a method is called better only beyond 2.14 standard deviations" in text  # one test, R = 20
    # a run made of several invocations states the sum of its jobs' times (benchmarks/job_times.py)
    pd.DataFrame({"kind": ["select", "total"], "jobs": [1500, 1500], "job_seconds": [30000.0, 30000.0]}).to_csv(
        tmp_path / "job_times.csv", index=False)
    assert run_docs.vs_random_table(table, tmp_path).startswith(
        "Run of 2026-11-28, commit `0123456789`, 1,500 jobs taking 8 h 20 min of one core each on 2 cores")



def test_the_tuned_table_counts_verdicts_per_label_metric(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    run_docs = load(ROOT / "benchmarks/run_docs.py")
    verdicts = {"LLCFS": ["better", "better", "worse"], "InfFS": ["not distinguishable", "worse", "worse"]}
    table = pd.DataFrame([{"dataset": d, "method": m, "G": 5, "metric": "kmeans_nmi", "verdict": v}
                          for m, vs in verdicts.items() for d, v in zip(["wine", "zoo", "wdbc"], vs)])
    (tmp_path / "all_selectors_tuned").mkdir()
    (tmp_path / "all_selectors_tuned" / "provenance.json").write_text(json.dumps(
        {"date": "2026-11-28", "git_commit": "0123456789abcdef"}))
    text = run_docs.tuned_table(table, tmp_path)
    assert text.startswith("Run of 2026-11-28, commit `0123456789`, run time not recorded; 3 low-dimensional datasets.")
    assert "| InfFS | 5 | 0 / 1 / 2 |" in text and "| LLCFS | 5 | **2 / 0 / 1** |" in text
    assert text.endswith("on a majority of datasets: K-means NMI 1 of 2.")
