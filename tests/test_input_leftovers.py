"""Bad inputs a battery of checks found handled only in part: each gives its own message or result now.

1. a near-constant column (``3 + 1e-12 N(0, 1)``) is round-off: flat for every selector and dropped by
   ``drop_constant``, by one rule (``validation.flat_features``: range <= 1e-10 of the column's magnitude);
2. a table holding only a header says so first, at start-up and in the loader;
3. a local table without its ``label`` option says so first, with the key and the candidate columns;
4. a YAML syntax error in an overlay is named by file, line and column before Snakemake's own message;
5. RUFS, NDFS and SOGFS refuse fewer distinct samples than ``n_clusters``, naming both;
6. the ``ScaleWarning`` follows a measured rule: a second fit on the column-standardised X when the column
   standard deviations differ by more than 4x, and the warning when the head of the ranking changes.
"""

from __future__ import annotations

import logging
import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from selector_checks import make_planted
from test_workflow import snakemake

import ufskit.selectors.base as base
from conftest import ROOT
from ufskit import validation
from ufskit.configio import ConfigError, configfiles_in_argv, report_configfile_syntax
from ufskit.data import Dataset
from ufskit.loaders import load
from ufskit.preflight import check_local_data
from ufskit.preprocess import apply_chain, drop_constant
from ufskit.selectors import MCFS, NDFS, RUFS, SELECTORS, SOGFS, SPFS, UDFS
from ufskit.selectors.ties import order_from_ranking
from ufskit.validation import ROUNDOFF_RELATIVE, ScaleWarning, flat_features

# the column the cases tamper with: not the first, so column order cannot help it
TARGET = 3


def scale_warnings(est, X):
    """Fit; return the estimator and the ScaleWarnings raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X)
    return est, [w for w in caught if issubclass(w.category, ScaleWarning)]


# ---- 1. round-off columns are flat --------------------------------------------------------------------------


def eleven_columns(seed=0):
    """The battery's case: 10 columns of planted structure and noise, then column TARGET = 3 + 1e-12 N(0, 1)."""
    X = make_planted(n_samples=40, n_informative=3, n_noise=8, random_state=seed).X
    X[:, TARGET] = 3.0 + 1e-12 * np.random.default_rng(seed).standard_normal(X.shape[0])
    return X


def test_the_round_off_bound_is_one_ten_billionth_of_the_magnitude():
    """Exact binary cases: a range of 2^-34 (5.8e-11) of 1 is flat, 2^-33 (1.2e-10) is not; the bound scales with the
    magnitude, never with the other columns."""
    assert ROUNDOFF_RELATIVE == 1e-10
    X = np.array([[1.0, 1.0, 2.0**40, 5.0], [1.0 + 2.0**-34, 1.0 + 2.0**-33, 2.0**40 + 2.0**6, -5.0]])
    assert flat_features(X).tolist() == [True, False, True, False]  # 2^6 / 2^40 = 5.8e-11: flat too
    X[:, 3] *= 1e90  # another column's scale changes no verdict
    assert flat_features(X).tolist() == [True, False, True, False]


def test_a_near_constant_column_is_dropped_by_the_chain_and_named(caplog):
    X = eleven_columns()
    names = np.array([f"f{j}" for j in range(X.shape[1])])
    with caplog.at_level(logging.INFO, logger="ufskit.preprocess"):
        out = apply_chain(Dataset(X, np.zeros(X.shape[0], dtype=int), names, {}), ["drop_constant", "zscore"])
    step = out.info["preprocessing"][0]
    assert step == {"step": "drop_constant", "n_removed": 1, "n_kept": 10, "n_near_constant": 1,
                    "first_removed": [TARGET], "removed_names": [f"f{TARGET}"]}
    assert "drop_constant: removed 1 of 11 features (0 exactly constant, 1 near-constant; first: [3])" in caplog.text
    assert out.X.shape == (40, 10) and f"f{TARGET}" not in out.feature_names
    assert drop_constant(X)[1].tolist() == [j != TARGET for j in range(11)]


@pytest.mark.parametrize("name", ["LaplacianScore", "SPEC", "MCFS", "NDFS"])
def test_the_selectors_rank_a_near_constant_column_last(name):
    """The battery found LS, SPEC, MCFS and NDFS ranking it 5th, 5th, 3rd and 9th of 11 with no warning."""
    est = SELECTORS[name]()
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    est.fit(eleven_columns())
    assert est.degenerate_features_.tolist() == [TARGET]
    assert est.scores_[TARGET] == -np.inf and est.ranking_[TARGET] == 11


# ---- 2. and 3. a local table: header only, label option missing --------------------------------------------


def local(path, **options):
    return {"datasets": {"own": {"path": str(path), "loader": "table", "options": options}}}


def test_a_header_only_table_says_so_first(tmp_path):
    path = tmp_path / "own.csv"
    path.write_text("a,b,class\n")
    with pytest.raises(ConfigError) as err:
        check_local_data(local(path, label="class"), ["own"])
    assert str(err.value) == ("datasets.own: own.csv has a header but no data rows; it must hold at least 2 samples, "
                              "one per row below the header.")
    with pytest.raises(ConfigError, match="has a header but no data rows"):  # before the missing label too
        check_local_data(local(path), ["own"])
    entry = {**local(path, label="class")["datasets"]["own"], "files": [str(path)]}
    with pytest.raises(ValueError) as err:
        load("own", entry, "/")
    assert str(err.value) == ("dataset 'own': own.csv has a header but no data rows; it must hold at least 2 samples, "
                              "one per row below the header.")
    path.write_text("")
    with pytest.raises(ConfigError, match=r"^datasets.own: own.csv is empty \(no header, no data rows\)"):
        check_local_data(local(path, label="class"), ["own"])


def test_a_missing_label_option_is_named_with_the_candidate_columns(tmp_path):
    path = tmp_path / "own.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.normal(size=9), "b": rng.normal(size=9), "class": list("xyz") * 3}).to_csv(path, index=False)
    with pytest.raises(ConfigError) as err:
        check_local_data(local(path), ["own"])
    assert str(err.value) == (
        "dataset 'own': datasets.own.options.label is not set; the 'table' loader needs the column of class labels "
        "(options: {label: <column>}), all the others being features. Non-numeric column(s) of own.csv that could "
        "be the label: ['class'].")
    pd.DataFrame({"a": rng.normal(size=9), "id": list("abcdefghi"), "k": [0, 1, 2] * 3}).to_csv(path, index=False)
    with pytest.raises(ConfigError, match=r"own.csv has no non-numeric column; the label is one of \['a', 'k'\]\.$"):
        check_local_data(local(path, drop=["id"]), ["own"])  # a dropped column is no candidate
    np.save(tmp_path / "own.npy", np.zeros((4, 3)))
    registry = {"datasets": {"own": {"path": str(tmp_path / "own.npy"), "loader": "npy"}}}
    with pytest.raises(ConfigError, match=r"datasets.own.options.label is not set; the 'npy' loader needs the index"):
        check_local_data(registry, ["own"])


def test_a_missing_label_option_is_the_first_message_of_a_run(tmp_path):
    """End to end: start-up names the option, not the label column as a non-numeric feature."""
    rng = np.random.default_rng(0)
    pd.DataFrame({"a": rng.normal(size=30), "b": rng.normal(size=30), "c": rng.normal(size=30),
                  "class": list("xyz") * 10}).to_csv(tmp_path / "own.csv", index=False)
    (tmp_path / "own.yaml").write_text(
        "run: [own]\n"
        "datasets:\n  own: {path: own.csv, loader: table}\n"
        "experiments:\n  own:\n    paper: generic\n    preprocess: zscore\n    datasets: [own]\n    reps: 1\n"
        "    n_features: [2]\n    methods: {LS: {selector: LaplacianScore}}\n    metrics: {distance_norms: {}}\n")
    proc = snakemake("-n", "--configfile", str(tmp_path / "own.yaml"), cwd=tmp_path, check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "dataset 'own': datasets.own.options.label is not set" in out, out[-3000:]
    assert "Non-numeric column(s) of own.csv that could be the label: ['class']." in out
    assert "are not numeric" not in out


# ---- 4. a YAML syntax error in an overlay -------------------------------------------------------------------

BROKEN = "run: [own_data]\ndatasets:\n  a:\n   path: x.csv\n  b: [1, 2\n"


def test_configfiles_are_found_in_snakemakes_command_line():
    argv = ["-n", "--configfile", "a.yaml", "b.yaml", "--cores", "2", "--configfiles=c.yaml", "target"]
    assert [str(p) for p in configfiles_in_argv(argv)] == ["a.yaml", "b.yaml", "c.yaml"]


def test_a_yaml_syntax_error_is_reported_with_file_line_and_column(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(BROKEN)
    good = tmp_path / "good.json"
    good.write_text('{"run":\t["own_data"]}')  # a tab YAML would refuse, valid JSON: Snakemake reads it
    messages = report_configfile_syntax(["--configfile", str(good), str(bad), str(tmp_path / "absent.yaml")])
    assert len(messages) == 1
    assert messages[0].startswith(f"Error in --configfile {bad}, line 6, column 1: not valid YAML (while parsing a "
                                  "flow sequence")
    assert messages[0] in capsys.readouterr().err


def test_a_broken_overlay_is_named_before_snakemakes_own_message(tmp_path):
    """End to end (a dry run): the workflow's profile names file, line and column; Snakemake's message follows."""
    (tmp_path / "broken.yaml").write_text(BROKEN)
    proc = subprocess.run([sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "Snakefile"), "-n",
                           "--configfile", "broken.yaml"], cwd=tmp_path, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)  # one stream: the order as a terminal shows it
    assert proc.returncode != 0
    ours = proc.stdout.find("Error in --configfile broken.yaml, line 6, column 1: not valid YAML (while parsing a "
                            "flow sequence")
    theirs = proc.stdout.find("Config file is not valid JSON or YAML")
    assert 0 <= ours < theirs, proc.stdout[-3000:]
    assert "did not find expected ',' or ']'" in proc.stdout


# ---- 5. fewer distinct samples than clusters ----------------------------------------------------------------


@pytest.mark.parametrize("cls", [RUFS, NDFS, SOGFS])
def test_fewer_distinct_samples_than_clusters_are_refused(cls):
    """30 samples, 3 distinct: RUFS raised numpy's "A singular matrix detected" from its start; NDFS and SOGFS split
    copies of one point into clusters."""
    X = np.repeat(np.random.default_rng(0).standard_normal((3, 6)), 10, axis=0)
    with pytest.raises(ValueError) as err:
        cls(n_clusters=5).fit(X)
    assert str(err.value) == (
        f"{cls.__name__}: n_clusters=5 needs at least 5 distinct samples, but X has only 3 distinct row(s) among its "
        "30 samples (over its non-flat columns); set n_clusters to at most 3.")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ScaleWarning)  # the 3 points' columns differ in scale; beside the point
        cls(n_clusters=3, max_iter=2).fit(X)  # as many clusters as distinct points: fitted


# ---- 6. the scale check -------------------------------------------------------------------------------------


def narrow_column(seed, factor):
    """Planted data (z-scored) with a noise column (not the first) shrunk ``factor`` times on an offset of 3."""
    planted = make_planted(n_samples=40, n_informative=3, n_noise=6, random_state=seed)
    j = next(c for c in range(1, planted.X.shape[1]) if c not in planted.informative)
    X = planted.X.copy()
    X[:, j] = 3.0 + X[:, j] / factor
    return X, j


@pytest.mark.parametrize("factor", [10, 100, 1000])
@pytest.mark.parametrize("cls", [MCFS, UDFS, SPFS])
def test_a_column_10_to_1000_times_narrower_is_warned_about(cls, factor):
    """MCFS, UDFS and SPFS put the narrow column in their top 3 in 9-10 of 10 seeds: each such fit now warns, with
    its ranking's head on X and on the standardised X."""
    ranked_high = warned = 0
    for seed in range(10):
        X, j = narrow_column(seed, factor)
        est, caught = scale_warnings(cls(), X)
        high = j in order_from_ranking(est.ranking_)[:3]
        ranked_high += high
        warned += bool(caught)
        if high:
            assert caught, f"{cls.__name__} seed {seed}: column {j} ranked {est.ranking_[j]} without a ScaleWarning"
        if caught:
            assert f"column {j}: " in str(caught[0].message)
    assert ranked_high >= 9 and warned >= 9


def test_the_workflows_fits_skip_the_check_and_the_library_restores_it():
    """A workflow job fits inside ``scale_check_off`` (its chains are the protocols'; its dataset tables give the
    spread ratio): no second fit, no warning; outside, the same fit warns."""
    from ufskit.runs import fit_selector

    X, _ = narrow_column(0, 100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit_selector({"selector": "MCFS", "params": {}}, X, seed=0, n_classes=3)
    assert not [w for w in caught if issubclass(w.category, ScaleWarning)]
    assert validation.SCALE_CHECK_FACTOR == 4.0
    assert scale_warnings(MCFS(), X)[1]


def test_the_warning_gives_both_heads():
    """The exact message, rebuilt from the fit on X and the fit on the column-standardised X."""
    X, j = narrow_column(0, 100)
    X[:, 0] *= 2.0  # the widest column: one, not a tie of z-scored columns
    est, caught = scale_warnings(MCFS(), X)
    stds = X.std(axis=0)
    twin = MCFS().fit(X / stds)
    before = order_from_ranking(est.ranking_)[:3].tolist()
    after = order_from_ranking(twin.ranking_)[:3].tolist()
    left = ", ".join(f"{c} (std {stds[c]:.3g})" for c in before if c not in after)
    widest = int(np.argmax(stds))
    assert len(caught) == 1 and str(caught[0].message) == (
        f"MCFS is scale-sensitive and X's column standard deviations differ by {stds.max() / stds.min():.3g}x "
        f"(column {j}: {stds[j]:.3g}, column {widest}: {stds[widest]:.3g}); standardising the columns changes its "
        f"first 3 features from {before} to {after} (dropping out: {left}). Its ranking then reflects the columns' "
        "units more than their structure; standardise X first (sklearn's StandardScaler, or the preprocessing "
        "chain step 'zscore').")
    assert j in before and j not in after


SENSITIVE = sorted(name for name, cls in SELECTORS.items() if cls.scale_sensitive)


@pytest.mark.parametrize("name", SENSITIVE)
def test_z_scored_data_is_never_checked_nor_warned_about(name, monkeypatch):
    """Every standard deviation 1: no second fit (clone is never called), no warning."""
    monkeypatch.setattr(base, "clone", lambda est: pytest.fail(f"{name}: a second fit on z-scored data"))
    X = make_planted(n_samples=40, n_informative=3, n_noise=6, random_state=1).X
    est = SELECTORS[name]()
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    assert not scale_warnings(est, X)[1]


@pytest.mark.parametrize("name", ["LaplacianScore", "MCFS", "NDFS", "KernelUDFS"])
def test_the_check_leaves_the_fit_as_it_was(name, monkeypatch):
    """The second fit is a clone's: the ranking and scores are those of a fit without the check (factor inf)."""
    X, _ = narrow_column(2, 30)
    params = {"random_state": 0} if "random_state" in SELECTORS[name]().get_params() else {}
    checked, caught = scale_warnings(SELECTORS[name](**params), X)
    monkeypatch.setattr(validation, "SCALE_CHECK_FACTOR", float("inf"))
    plain, none = scale_warnings(SELECTORS[name](**params), X)
    assert not none
    np.testing.assert_array_equal(checked.ranking_, plain.ranking_)
    np.testing.assert_array_equal(checked.scores_, plain.scores_)


def test_columns_within_the_factor_are_not_checked(monkeypatch):
    """Standard deviations 1 and 3.9: below SCALE_CHECK_FACTOR (4), no second fit whatever the ranking."""
    assert validation.SCALE_CHECK_FACTOR == 4.0
    monkeypatch.setattr(base, "clone", lambda est: pytest.fail("a second fit below the factor"))
    X = make_planted(n_samples=40, n_informative=3, n_noise=6, random_state=3).X
    X[:, 5] *= 3.9
    assert not scale_warnings(MCFS(), X)[1]


def test_a_failed_second_fit_still_warns(monkeypatch):
    X, j = narrow_column(0, 100)

    def broken(est):
        twin = type(est)(**est.get_params())
        twin._score = lambda Z: (_ for _ in ()).throw(RuntimeError("boom"))
        return twin

    monkeypatch.setattr(base, "clone", broken)
    _, caught = scale_warnings(MCFS(), X)
    assert len(caught) == 1
    assert re.search(r"whether standardising changes its ranking could not be checked \(the fit on the "
                     r"standardised X failed: RuntimeError: boom\)\. Its ranking", str(caught[0].message))
