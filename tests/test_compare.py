"""`ufskit compare`: a run against a reference, number by number, within the scorecard's tolerances."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from ufskit import compare as cmp
from ufskit.cli import main
from ufskit.compare import BEYOND, IDENTICAL, MOVED, WITHIN, cells, compare_runs, read_cells, within, write_cells

TOLERANCES = {"knn_acc": {"absolute": 2.0}, "w11": {"relative": 0.25}, "fit_seconds": {"factor": 3.0}}


def make_run(root, *, knn=93.4, w11=0.25, verdict="holds", statistic=7.123456789, extra_row=False, n_datasets=4):
    """A small results folder: a scorecard (two numbers, a claim), a paper table, its claims, a figure, a
    benchmark statistic no published metric covers, and files that are not compared (times, per-run metrics)."""
    card = pd.DataFrame({
        "kind": ["number", "number", "claim"], "paper": ["ivfs"] * 3, "report": ["ivfs"] * 3,
        "dataset": ["lymphoma", "lymphoma", ""], "method": ["IVFS", "IVFS", ""], "metric": ["knn_acc", "w11", ""],
        "published": [94.0, 0.06, np.nan], "reproduced": [knn, w11, np.nan], "outcome": ["within tolerance",
        "outside tolerance", verdict], "claim_id": ["", "", "IVFS/C1"],
        "numbers": ["", "", f"IVFS beats SPEC on {knn:.1f} vs 90.2"]})
    (root / "ivfs").mkdir(parents=True)
    card.to_csv(root / "scorecard.csv", index=False)
    table = pd.DataFrame({"dataset": ["lymphoma"] * 2, "method": ["IVFS", "SPEC"], "metric": ["knn_acc"] * 2,
                          "reproduced": [knn, 90.2], "fit_seconds": [1.5, 0.2]})
    if extra_row:
        table.loc[2] = ["lymphoma", "MCFS", "knn_acc", 88.0, 0.1]
    table.to_csv(root / "ivfs/table1.csv", index=False)
    pd.DataFrame({"id": ["IVFS/C1"], "verdict": [verdict], "numbers": [f"{knn:.2f} vs 90.2"]}).to_csv(
        root / "ivfs/claims.csv", index=False)
    (root / "ivfs/fig2.png").write_bytes(b"png")
    (root / "benchmark").mkdir()
    pd.DataFrame({"test": ["friedman"], "statistic": [statistic], "n_datasets": [n_datasets]}).to_csv(
        root / "benchmark/stats.csv", index=False)
    (root / "ivfs/metrics").mkdir()
    pd.DataFrame({"value": [np.random.default_rng().random()]}).to_csv(root / "ivfs/metrics/rep0.csv", index=False)
    return root


def run_cli(tmp_path, mine, reference, capsys):
    code = main(["compare", str(mine), str(reference), "--config", str(write_config(tmp_path))])
    return code, capsys.readouterr().out


def write_config(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("scorecard:\n  tolerances:\n" + "".join(
        f"    {m}: {json.dumps(t)}\n" for m, t in TOLERANCES.items()))
    return path


def test_a_run_against_itself_is_identical(tmp_path, capsys):
    ref = make_run(tmp_path / "ref")
    code, out = run_cli(tmp_path, ref, ref, capsys)
    assert code == 0 and "overall: identical" in out


def test_times_and_per_run_files_are_not_compared(tmp_path):
    run = make_run(tmp_path / "ref")
    table = cells(run)
    assert not table["column"].str.contains("seconds").any()
    assert not table["file"].str.contains("/metrics/").any()


def test_an_experiments_summary_only_one_side_has_is_not_listed_and_is_compared_where_both_have_it(tmp_path):
    # a run's experiment summary (beside its metrics.parquet) is per-run data a built reference leaves out
    run, ref = make_run(tmp_path / "run"), make_run(tmp_path / "ref")
    (run / "ivfs/metrics.parquet").write_bytes(b"parquet")
    pd.DataFrame({"dataset": ["lymphoma"], "metric": ["knn_acc"], "value": [0.9]}).to_csv(run / "ivfs/summary.csv",
                                                                                            index=False)
    result = compare_runs(run, ref, TOLERANCES)
    assert "ivfs/summary.csv" not in set(result.cells["file"]) and "ivfs/summary.csv" not in result.files_only_mine
    assert result.all_identical
    # both results folders have it: its cells are compared, a move is listed
    shutil.copytree(run, tmp_path / "other")
    pd.DataFrame({"dataset": ["lymphoma"], "metric": ["knn_acc"], "value": [0.8]}).to_csv(
        tmp_path / "other/ivfs/summary.csv", index=False)
    moved = compare_runs(run, tmp_path / "other", TOLERANCES).cells
    assert set(moved.loc[moved["file"] == "ivfs/summary.csv", "status"]) == {MOVED}


def test_a_number_moved_beyond_its_tolerance_fails_and_is_named(tmp_path, capsys):
    ref, mine = make_run(tmp_path / "ref"), make_run(tmp_path / "mine", knn=90.9)  # 2.5 points: beyond 2
    code, out = run_cli(tmp_path, mine, ref, capsys)
    assert code == 1 and "differs:" in out
    beyond = [line for line in out.splitlines() if line.startswith("  beyond: scorecard.csv")]
    assert len(beyond) == 1 and "|lymphoma|IVFS|knn_acc|" in beyond[0], out
    assert beyond[0].endswith("reproduced: 90.900000000000006 (reference 93.400000000000006)")
    # the paper table's copy of the number is listed as moved: other tables inform, the scorecard decides
    assert "  moved: ivfs/table1.csv [lymphoma|IVFS|knn_acc] reproduced: 90.900000000000006" in out


def test_a_number_within_its_tolerance_agrees(tmp_path, capsys):
    ref, mine = make_run(tmp_path / "ref"), make_run(tmp_path / "mine", knn=92.0, w11=0.3)  # 1.4 points, 20 %
    result = compare_runs(mine, ref, TOLERANCES)
    within_tol, moved = result.of(WITHIN), result.of(MOVED)
    assert set(within_tol["file"]) == {"scorecard.csv"} and len(within_tol) == 2  # knn and w11, the metrics' units
    assert list(moved["file"]) == ["ivfs/table1.csv"]  # beyond round-off in a table the scorecard does not hold
    assert result.agrees
    # the claim's text, which writes the number, names the same row: its decimals are masked in the row's name
    assert (result.cells["status"].isin([IDENTICAL, WITHIN, MOVED])).all()
    code, out = run_cli(tmp_path, mine, ref, capsys)
    assert code == 0 and "overall: agrees" in out and "(1 cells of other tables moved beyond round-off)" in out


def test_the_scorecard_difference_moves_with_its_reproduced_number_which_decides(tmp_path):
    """difference = reproduced - published (0.06): 0.01 -> 0.02 doubles it, but its reproduced number moved
    0.07 -> 0.08 (14 %, within the 25 %); the difference is listed as moved, the comparison agrees."""
    ref, mine = make_run(tmp_path / "ref", w11=0.07), make_run(tmp_path / "mine", w11=0.08)
    for run in (ref, mine):
        card = pd.read_csv(run / "scorecard.csv")
        card["difference"] = card["reproduced"] - card["published"]
        card.to_csv(run / "scorecard.csv", index=False)
    result = compare_runs(mine, ref, TOLERANCES)
    by_column = result.cells[result.cells["file"] == "scorecard.csv"].set_index(["metric", "column"])["status"]
    assert by_column[("w11", "reproduced")] == WITHIN and by_column[("w11", "difference")] == MOVED
    assert result.agrees


def test_a_changed_claim_verdict_fails(tmp_path, capsys):
    ref, mine = make_run(tmp_path / "ref"), make_run(tmp_path / "mine", verdict="does not hold")
    result = compare_runs(mine, ref, TOLERANCES)
    assert set(result.verdicts_changed["file"]) == {"scorecard.csv", "ivfs/claims.csv"}
    code, out = run_cli(tmp_path, mine, ref, capsys)
    assert code == 1 and "claim verdicts changed: 2" in out


@pytest.mark.parametrize(("mine", "reference", "status"), [
    ("yes", "too close to call", WITHIN), ("too close to call", "no", WITHIN), ("yes", "no", BEYOND),
    ("main", "too close to call", WITHIN), ("main", "kudfs_width_sigma2", BEYOND)])
def test_a_verdict_at_its_edge_is_within_tolerance_and_a_flip_is_not(tmp_path, mine, reference, status):
    """A "beats chance" or "closest reading" that moves to or from "too close to call" agrees; yes <-> no fails."""
    for side, verdict in (("ref", reference), ("mine", mine)):
        make_run(tmp_path / side)
        card = pd.read_csv(tmp_path / side / "scorecard.csv")
        card["reproduced_beats_chance"] = ["", verdict, ""]
        card.to_csv(tmp_path / side / "scorecard.csv", index=False)
    result = compare_runs(tmp_path / "mine", tmp_path / "ref", TOLERANCES)
    cell = result.cells[result.cells["column"] == "reproduced_beats_chance"]
    assert sorted(cell["status"]) == sorted([IDENTICAL, IDENTICAL, status])
    assert result.agrees == (status == WITHIN)


def test_a_statistic_is_held_to_round_off_and_its_move_is_listed_not_failed(tmp_path):
    ref = make_run(tmp_path / "ref")
    close = compare_runs(make_run(tmp_path / "close", statistic=7.123456789 * (1 + 1e-9)), ref, TOLERANCES)
    assert list(close.of(WITHIN)["column"]) == ["statistic"] and close.agrees
    far = compare_runs(make_run(tmp_path / "far", statistic=7.2), ref, TOLERANCES)
    assert list(far.of(MOVED)["column"]) == ["statistic"] and far.of(BEYOND).empty and far.agrees


def test_a_metric_in_other_units_is_not_held_to_the_scorecard_tolerance(tmp_path):
    """A benchmark summary's K-means accuracy is a fraction: the scorecard's 2 points must not cover 0.05 there."""
    ref, mine = make_run(tmp_path / "ref"), make_run(tmp_path / "mine")
    for root, acc in ((ref, 0.90), (mine, 0.95)):
        pd.DataFrame({"dataset": ["wine"], "method": ["LS"], "metric": ["knn_acc"], "mean": [acc]}).to_csv(
            root / "benchmark/summary.csv", index=False)
    result = compare_runs(mine, ref, TOLERANCES)
    assert list(result.of(MOVED)["file"]) == ["benchmark/summary.csv"]


def test_a_row_renamed_by_a_changed_integer_is_a_move_outside_the_scorecard(tmp_path, capsys):
    """A count in an integer column names its row; a changed count is a difference, not a row on each side. In a
    statistics table it moves as its other numbers do (a count of wins flips with a K-means start): listed, not
    failed."""
    ref, mine = make_run(tmp_path / "ref"), make_run(tmp_path / "mine", n_datasets=5)
    result = compare_runs(mine, ref, TOLERANCES)
    renamed = result.of(MOVED)
    assert set(renamed["file"]) == {"benchmark/stats.csv"} and set(renamed["row"]) == {"friedman|4", "friedman|5"}
    assert result.of(BEYOND).empty and result.agrees
    code, out = run_cli(tmp_path, mine, ref, capsys)
    assert code == 0 and "moved: benchmark/stats.csv [friedman|5]" in out


def test_a_scorecard_row_renamed_by_a_changed_integer_fails(tmp_path, capsys):
    ref, mine = make_run(tmp_path / "ref"), make_run(tmp_path / "mine")
    for root, g in ((ref, 3), (mine, 4)):
        card = pd.read_csv(root / "scorecard.csv")
        card.insert(1, "best_count", g)
        card.to_csv(root / "scorecard.csv", index=False)
    result = compare_runs(mine, ref, TOLERANCES)
    assert set(result.of(BEYOND)["file"]) == {"scorecard.csv"} and not result.agrees
    code, _ = run_cli(tmp_path, mine, ref, capsys)
    assert code == 1


def test_a_partial_run_compares_what_it_has_and_says_what_it_has_not(tmp_path, capsys):
    ref = make_run(tmp_path / "ref", extra_row=True)
    mine = make_run(tmp_path / "mine")
    shutil.rmtree(mine / "benchmark")
    (mine / "ivfs/fig2.png").unlink()
    result = compare_runs(mine, ref, TOLERANCES)
    assert result.agrees
    assert result.files_only_reference == ["benchmark/stats.csv", "ivfs/fig2.png"]
    code, out = run_cli(tmp_path, mine, ref, capsys)
    assert code == 0
    assert "1 only in the reference" in out  # the MCFS row of table1
    assert "files not in this run (only in the reference): benchmark/stats.csv, ivfs/fig2.png" in out


def test_a_stored_cells_file_serves_as_the_reference(tmp_path):
    ref = make_run(tmp_path / "ref")
    write_cells(ref, tmp_path / "cells.csv.gz")
    stored = read_cells(tmp_path / "cells.csv.gz")
    pd.testing.assert_frame_equal(stored, cells(ref).astype(str))
    assert compare_runs(ref, tmp_path / "cells.csv.gz", TOLERANCES).all_identical


def test_tolerances_come_from_the_reference_provenance(tmp_path, capsys, monkeypatch):
    ref, mine = make_run(tmp_path / "ref"), make_run(tmp_path / "mine", knn=92.0)
    (ref / "provenance.json").write_text(json.dumps({"tolerances": {"knn_acc": {"absolute": 1.0}}}))
    monkeypatch.chdir(tmp_path)
    assert main(["compare", str(mine), str(ref)]) == 1  # 1.4 points: beyond the reference's 1
    assert "beyond" in capsys.readouterr().out


@pytest.mark.parametrize("missing", ["results", "reference"])
def test_a_missing_folder_is_a_clear_error(tmp_path, capsys, missing):
    run = make_run(tmp_path / "run")
    args = [str(tmp_path / "nope"), str(run)] if missing == "results" else [str(run), str(tmp_path / "nope")]
    assert main(["compare", *args, "--config", str(write_config(tmp_path))]) == 2
    assert f"{missing.upper()}: " in capsys.readouterr().err


def test_without_any_tolerances_it_says_where_it_looked(tmp_path, capsys, monkeypatch):
    run = make_run(tmp_path / "run")
    monkeypatch.chdir(tmp_path)
    assert main(["compare", str(run), str(run)]) == 2
    assert "no tolerances" in capsys.readouterr().err


def test_within_is_symmetric_for_factors_and_strict_about_nan():
    assert within(2.0, 5.9, {"factor": 3.0}) and not within(2.0, 6.1, {"factor": 3.0})
    assert within(-2.0, -5.9, {"factor": 3.0})
    assert within(np.nan, np.nan, cmp.NUMERIC) and not within(1.0, np.nan, cmp.NUMERIC) and not within(np.nan, 1.0, cmp.NUMERIC)
    assert within(100.0, 100.0001, cmp.NUMERIC) and not within(100.0, 100.001, cmp.NUMERIC)
