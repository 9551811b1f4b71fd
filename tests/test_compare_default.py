"""`ufskit compare RESULTS` without a second folder: the repository's reference/, found beside the package."""

from __future__ import annotations

import json
import shutil

import pandas as pd
import pytest
from test_compare import TOLERANCES, make_run

from conftest import ROOT
from ufskit import cli
from ufskit.cli import main


@pytest.fixture
def clone(tmp_path, monkeypatch):
    """A clone the package seems installed from: a Snakefile and reference/, a tiny shipped run whose provenance
    holds the tolerances (knn_acc: 2 points)."""
    repo = tmp_path / "clone"
    make_run(repo / "reference")
    (repo / "Snakefile").write_text("")
    (repo / "reference/provenance.json").write_text(json.dumps({"git_commit": "0" * 40, "tolerances": TOLERANCES}))
    monkeypatch.setattr(cli, "REPOSITORY", repo)
    return repo


def moved_copy(reference, out, knn):
    """A copy of the reference folder with the scorecard's KNN accuracy (93.4) set to ``knn``."""
    shutil.copytree(reference, out)
    card = pd.read_csv(out / "scorecard.csv", keep_default_na=False, na_values=[""])
    card.loc[card["metric"] == "knn_acc", "reproduced"] = knn
    card.to_csv(out / "scorecard.csv", index=False)
    return out


def test_without_a_second_folder_the_repositorys_reference_is_used(clone, capsys):
    assert cli.default_reference() == clone / "reference"
    assert main(["compare", str(clone / "reference")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"comparing {clone / 'reference'} with {clone / 'reference'}\n")
    assert out.rstrip().endswith("overall: identical")


def test_a_scorecard_number_moved_beyond_its_tolerance_exits_1_naming_the_row(clone, tmp_path, capsys):
    mine = moved_copy(clone / "reference", tmp_path / "results", 90.9)  # 2.5 points from 93.4: beyond 2
    assert main(["compare", str(mine)]) == 1
    out = capsys.readouterr().out
    assert f"with {clone / 'reference'}" in out.splitlines()[0] and "overall: differs" in out
    beyond = [line for line in out.splitlines() if line.startswith("  beyond: scorecard.csv")]
    assert len(beyond) == 1 and "|lymphoma|IVFS|knn_acc|" in beyond[0], out
    assert beyond[0].endswith("reproduced: 90.900000000000006 (reference 93.400000000000006)")


def test_a_scorecard_number_moved_within_its_tolerance_agrees(clone, tmp_path, capsys):
    mine = moved_copy(clone / "reference", tmp_path / "results", 92.0)  # 1.4 points: within 2
    assert main(["compare", str(mine)]) == 0
    out = capsys.readouterr().out
    assert "overall: agrees" in out and "beyond:" not in out


def test_outside_a_clone_the_error_says_to_name_the_reference_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "REPOSITORY", tmp_path / "site-packages")  # a wheel's install: no Snakefile, no reference/
    run = make_run(tmp_path / "results")
    assert main(["compare", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ufskit compare: no reference folder to compare with by default")
    assert "name the reference folder: ufskit compare RESULTS REFERENCE" in err


def test_a_reference_folder_without_a_full_run_is_not_compared_with(clone, capsys):
    (clone / "reference/scorecard.csv").unlink()  # the repository's reference/ before its run is shipped
    assert main(["compare", str(clone / "reference")]) == 2
    assert "holds no full run yet (no scorecard.csv" in capsys.readouterr().err


def test_the_default_is_this_checkouts_reference_folder():
    """Installed in editable mode from this clone: its reference/, once it holds the full run."""
    assert cli.REPOSITORY == ROOT
    if (ROOT / "reference/scorecard.csv").exists():
        assert cli.default_reference() == ROOT / "reference"
    else:
        with pytest.raises(FileNotFoundError, match="the reference run is not shipped"):
            cli.default_reference()
