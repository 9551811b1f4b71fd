"""A paper as one folder (ufskit.papers.spec): the registry found by scanning, each paper's folder complete,
the registry's checks, and the toy paper (tests/papers/toy) registered from outside the package; a copy of
it under a new name is a new paper in the scorecard, the report and the dry run, with no other file touched;
copied into the package (src/ufskit/papers/) of a copy of the repository, every test that reads the registry of
papers passes there untouched."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pandas as pd
import pytest

from conftest import ROOT
from ufskit import papers
from ufskit import scorecard as S
from ufskit.papers import spec as paper_spec

TOY = ROOT / "tests/papers/toy"
BUILT_IN = ROOT / "src/ufskit/papers"


@pytest.fixture
def toy(monkeypatch):
    """The toy paper registered in a copy of the registry (the other tests see the built-in papers only)."""
    monkeypatch.setattr(paper_spec, "_REGISTRY", dict(papers.registry()))
    monkeypatch.syspath_prepend(str(TOY.parent))
    return papers.register(TOY)


def test_the_registry_holds_every_paper_folder_of_the_package():
    folders = sorted(p.parent.name for p in BUILT_IN.glob("*/__init__.py"))
    assert list(papers.registry()) == folders
    assert {name: spec.home for name, spec in papers.registry().items()} == {f: BUILT_IN / f for f in folders}
    assert papers.titles()["benchmark"] == "Cross-paper benchmark"
    assert "benchmark" not in papers.scored()  # the benchmark publishes nothing
    assert papers.registry()["kudfs"].roles == ("udfs", "table1", "fig1", "fig2")


@pytest.mark.parametrize("name", list(papers.registry()))
def test_a_papers_folder_holds_its_rules_published_numbers_claims_and_captions(name):
    spec = papers.registry()[name]
    assert spec.rules == spec.home / "rules.smk" and spec.rules.is_file()
    for block in spec.published:
        assert spec.path(block.file).is_file()
    if spec.claims is not None:
        claims = S.read_reference(spec.path(spec.claims))
        assert set(claims["paper"]) == {name} and len(claims) > 0
    # its captions are those of its tables and figures, no more, no fewer, each in its folder
    assert {p.stem for p in (spec.home / "captions").glob("*.rst")} == spec.captions
    # its rules' scripts are in its folder
    scripts = {p.name for p in (spec.home / "scripts").glob("*.py")}
    named = {line.strip().strip('"').removeprefix("scripts/") for line in spec.rules.read_text().splitlines()
             if line.strip().startswith('"scripts/')}
    assert named and named <= scripts


def test_the_workflow_keeps_only_the_captions_of_no_paper():
    # the landing page, the scorecard and the statistics of methods added to any paper
    assert {p.stem for p in (ROOT / "workflow/report").glob("*.rst")} == {"workflow", "scorecard", "paper_stats"}


def test_experiments_name_a_known_paper_and_one_of_its_roles():
    ok = {"a": {"paper": "kudfs", "role": "fig2"}, "b": {"paper": "generic"}, "c": {"paper": "ils", "role": "uci"}}
    papers.check_experiments(ok)
    with pytest.raises(ValueError, match="'x': paper must be 'generic' or a registered paper.*got 'kudf'"):
        papers.check_experiments({"x": {"paper": "kudf"}})
    with pytest.raises(ValueError, match=r"'x': paper 'kudfs' needs a `role`, one of \['udfs'"):
        papers.check_experiments({"x": {"paper": "kudfs"}})
    with pytest.raises(ValueError, match=r"'x': role must be one of \['udfs', 'table1', 'fig1', 'fig2'\].*'fig3'"):
        papers.check_experiments({"x": {"paper": "kudfs", "role": "fig3"}})
    with pytest.raises(ValueError, match=r"role must be one of \[\] for paper 'ivfs'"):
        papers.check_experiments({"x": {"paper": "ivfs", "role": "table1"}})


def test_a_paper_folder_needs_a_spec_named_as_it_and_a_new_name(toy, tmp_path, monkeypatch):
    assert papers.register(TOY) is toy and toy.home == TOY  # registering again changes nothing
    assert papers.register_folders([TOY.parent]) == [toy]
    with pytest.raises(ValueError, match="parent folder must be on the import path"):
        papers.register(tmp_path / "elsewhere")
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "nopaper").mkdir()
    (tmp_path / "nopaper/__init__.py").write_text("X = 1\n")
    with pytest.raises(ValueError, match="'nopaper' must define PAPER, a PaperSpec; got NoneType"):
        papers.register(tmp_path / "nopaper")
    (tmp_path / "misnamed").mkdir()
    (tmp_path / "misnamed/__init__.py").write_text("from ufskit.papers import PaperSpec\nPAPER = PaperSpec('x', 't')\n")
    with pytest.raises(ValueError, match="PAPER.name must be its folder's name 'misnamed', got 'x'"):
        papers.register(tmp_path / "misnamed")
    (tmp_path / "json").mkdir()
    (tmp_path / "json/__init__.py").write_text("")
    with pytest.raises(ValueError, match="`import json` finds .* first; rename the folder"):
        papers.register(tmp_path / "json")
    twin = paper_spec.PaperSpec(name="ils", title="another ILS")
    with pytest.raises(ValueError, match="paper 'ils' is already registered"):
        paper_spec._add(twin)
    clash = paper_spec.PaperSpec(name="other", title="t", published=(paper_spec.Published("ils_table1.csv", "T", {}),))
    with pytest.raises(ValueError, match=r"published file name\(s\) \['ils_table1.csv'\] already used"):
        paper_spec._add(clash)


def test_the_toy_papers_numbers_and_claim_in_the_scorecard(toy):
    assert list(papers.scored())[-1] == "toy" and toy.captions == {"toy_table1", "toy_fig1"}
    published = S.published_tables()
    reference = S.read_reference(S.claim_lists())
    assert reference["id"].iloc[-1] == "TOY/LS-beats-Variance"
    table = pd.DataFrame({"dataset": ["wine", "wine"], "method": ["Variance", "LS"], "kmeans_acc": [74.0, 95.0]})
    # Fig. 1: numbers keyed by a feature count (Published.keys), read from an output named neither table1 nor table2
    curve = pd.DataFrame({"dataset": "wine", "method": ["LS", "LS", "LS", "Variance"], "n_features": [5, 2, 10, 2],
                          "kmeans_acc": [89.0, 70.0, 99.0, 60.0]})
    claims = papers.claims_frame([{"id": "TOY/LS-beats-Variance", "claim": "c", "verdict": True, "numbers": "n"}])
    runs = {"toy": [S.ReportResults("toy", {"table1": table, "curve": curve}, claims)]}
    card = S.scorecard(published, reference, runs, excluded={}, tolerances={
        m: {"absolute": 2.0} for m in S.published_numbers(published)["metric"].unique()})
    assert S.extra_keys() == ["n_features"] and "n_features" in card
    mine = card[(card["paper"] == "toy") & (card["table"] == "Table 1")].set_index(["kind", "method"])
    assert mine.loc[("number", "Variance"), "outcome"] == "within tolerance"
    assert mine.loc[("number", "LS"), ["published", "reproduced", "outcome"]].tolist() == [90.0, 95.0,
                                                                                           "outside tolerance"]
    assert mine.loc[("number", "LS"), "n_features"] == ""  # a block without the key
    assert mine.xs("claim")["outcome"].tolist() == ["holds"]
    # each published count meets the reproduced value at that count, no other
    fig1 = card[(card["paper"] == "toy") & (card["table"] == "Fig. 1") & (card["kind"] == "number")].set_index("n_features")
    assert fig1[["method", "published", "reproduced", "outcome"]].to_dict("index") == {
        "2": {"method": "LS", "published": 80.0, "reproduced": 70.0, "outcome": "outside tolerance"},
        "5": {"method": "LS", "published": 90.0, "reproduced": 89.0, "outcome": "within tolerance"}}
    assert (fig1["evidence"] == "results/toy/curve.csv").all()
    assert set(card.loc[card["paper"] == "ivfs", "outcome"]) == {"not run"}
    assert set(card.loc[(card["paper"] == "ivfs") & (card["kind"] == "number"), "n_features"]) == {""}
    markdown = S.scorecard_markdown(card, excluded={}, tolerances={"kmeans_acc": {"absolute": 2.0}})
    assert "| wine | LS | kmeans_acc | 2 | 80 | 70 | -10 |" in markdown  # the count after the metric


def test_a_papers_scripts_import_it_on_both_routes(toy, tmp_path):
    """paper_package(__file__) in a script: the built-in paper's package (ufskit.papers.<name>), or the top-level
    package of a paper of a paper_folders folder; a file in no paper folder is an error."""
    from ufskit.papers import ils

    assert papers.paper_package(BUILT_IN / "ils/scripts/ils_table1.py") is ils
    assert papers.paper_package(BUILT_IN / "ils/__init__.py") is ils
    mine = papers.paper_package(TOY / "scripts/toy_table1.py")
    assert mine.__name__ == "toy" and mine.PAPER.name == "toy" and papers.paper_package(TOY / "rules.smk") is mine
    with pytest.raises(ValueError, match="in no paper folder"):
        papers.paper_package(tmp_path / "script.py")


def test_a_published_block_without_its_key_column_in_the_reproduced_table_is_named(toy):
    curve = pd.DataFrame({"dataset": ["wine"], "method": ["LS"], "kmeans_acc": [89.0]})
    with pytest.raises(KeyError, match="n_features"):
        S.reproduced_numbers("toy", S.ReportResults("toy", {"curve": curve}))


def copy_paper(source, folder, name):
    """The paper folder `source` copied to `folder`/`name`, its name changed inside (text and file names; in capitals,
    the prefix of its claim ids, too), as docs/extending.md tells."""
    target = folder / name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    for path in sorted(target.rglob("*"), key=lambda p: -len(p.parts)):
        if path.is_file():
            path.write_text(path.read_text().replace(source.name, name).replace(source.name.upper(), name.upper()))
        if source.name in path.name:
            path.rename(path.with_name(path.name.replace(source.name, name)))
    return target


def snakemake(*args, cwd, mirror):
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), *args]
    return subprocess.run(cmd, cwd=cwd, env={**os.environ, "UFS_DATA_MIRROR": str(mirror)},
                          capture_output=True, text=True)


@pytest.mark.workflow
def test_a_copy_of_the_toy_paper_is_a_new_paper(tmp_path, mirror):
    paper = copy_paper(TOY, tmp_path / "papers", "fifth")
    work = tmp_path / "run"
    work.mkdir()
    # its smoke experiment comes with its folder (protocols/smoke.yaml); the run builds only it
    configs = ["--configfile", str(ROOT / "config/smoke.yaml"),
               "--config", f"paper_folders=[{paper.parent}]", "run=[smoke_fifth_wine]"]
    dry = snakemake("-n", *configs, cwd=work, mirror=mirror)
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert "rule fifth_table1:" in dry.stdout + dry.stderr
    proc = snakemake("--cores", "2", *configs, cwd=work, mirror=mirror)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    card = pd.read_csv(work / "results/scorecard.csv", keep_default_na=False)
    assert list(dict.fromkeys(card["paper"]))[-1] == "fifth"
    mine = card[card["paper"] == "fifth"]
    numbers = mine[mine["kind"] == "number"].set_index("method")
    assert numbers.loc[numbers["table"] == "Table 1", "published"].astype(float).to_dict() == {"Variance": 74.4,
                                                                                              "LS": 90.0}
    fig1 = numbers[numbers["table"] == "Fig. 1"].set_index("n_features")  # keyed by the feature count
    assert fig1["published"].astype(float).to_dict() == {"2": 80.0, "5": 90.0}
    assert fig1["reproduced"].astype(float).gt(0).all() and (fig1["evidence"] == "results/fifth/curve.csv").all()
    assert (numbers.loc[numbers["table"] == "Table 1", "evidence"] == "results/fifth/table1.csv").all()
    assert numbers["outcome"].str.match(r"smoke: (within|outside) tolerance$").all()
    claim = mine[mine["kind"] == "claim"]
    assert claim["claim_id"].tolist() == ["FIFTH/LS-beats-Variance"]
    assert claim["outcome"].str.match(r"smoke: (holds|partly holds|does not hold)$").all()
    assert (work / claim["evidence"].iloc[0]).is_file()  # results/fifth/claims.md
    assert "| Toy paper (tests) | results/fifth/ | main | 4 |" in (work / "results/scorecard.md").read_text()
    report = snakemake("--report", "report.zip", *configs, cwd=work, mirror=mirror)
    assert report.returncode == 0, report.stderr[-3000:]
    page = zipfile.ZipFile(work / "report.zip").read("report/report.html").decode()
    assert '"results/fifth/table1.html": {"name": "table1.html"' in page  # in the report, with its caption
    assert "Toy paper, <strong>Table 1</strong> reproduced in reduced form (smoke protocol)" in page
    assert '"results/fifth/fig1.png": {"name": "fig1.png"' in page and (work / "results/fifth/fig1.png").stat().st_size
    assert "Toy paper, <strong>Fig. 1</strong> reproduced in reduced form (smoke protocol)" in page


# The tests that read the registry of papers (they count, name or loop over the papers, their protocol files, their
# captions, groups and package data), run in a copy of the repository whose package holds a copy of the toy paper.
# The whole fast suite there takes too long for one test; it passes too (run by hand: docs/extending.md).
REGISTRY_TESTS = ["tests/test_scorecard.py", "tests/test_docs.py", "tests/test_protocols.py", "tests/test_captions.py",
                  "tests/test_config_check.py", "tests/test_package_data.py", "tests/test_toy_paper.py", "tests/test_lint.py",
                  "tests/test_quick_workflow.py::test_quick_config_covers_every_paper_and_only_mirrored_datasets"]
NOT_COPIED = (".git", ".venv", "results", "resources", "logs", ".snakemake", "__pycache__", ".*_cache", "*.egg-info",
              "build", "dist")


def test_a_copy_of_the_toy_paper_in_the_package_needs_no_other_file(tmp_path):
    """Copied into src/ufskit/papers/ of a copy of the repository (its name changed, nothing else), the toy paper is
    a built-in paper: the registry holds it, its experiments of every protocol join the configs, and the tests
    reading the registry pass there untouched (totals and names come from the registry, not from a list)."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(*NOT_COPIED))
    name = next(n for n in ("fifth", "sixth", "seventh") if n not in papers.registry())  # a new paper's name
    copy_paper(TOY, repo / "src/ufskit/papers", name)
    here = os.path.relpath(__file__, ROOT)
    deselect = [f"{here}::{name}" for name in ("test_a_copy_of_the_toy_paper_is_a_new_paper",
                                               "test_a_copy_of_the_toy_paper_in_the_package_needs_no_other_file")]
    env = {**os.environ, "PYTHONPATH": str(repo / "src")}  # the copy's package first, before the installed one
    check = subprocess.run([sys.executable, "-c", f"import ufskit.papers as p; print(p.registry()['{name}'].home)"],
                           cwd=repo, env=env, capture_output=True, text=True)
    assert check.returncode == 0 and check.stdout.strip() == str(repo / "src/ufskit/papers" / name), check.stderr
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0",
                           *REGISTRY_TESTS, *(f"--deselect={d}" for d in deselect)],
                          cwd=repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
