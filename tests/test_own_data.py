"""Your own data and selector, without Snakemake: local datasets, user selectors (import path, entry
point), strict config files, start-up checks, changed inputs and corrupt intermediates, provenance."""

from __future__ import annotations

import os
import subprocess
import textwrap
from importlib import metadata

import numpy as np
import pandas as pd
import pytest
import scipy.io

from conftest import ROOT
from ufskit import config_check, startup
from ufskit.configio import ConfigError, check_n_features, load_yaml, n_features_problem
from ufskit.data import Dataset, IntegrityError, load_dataset, save_dataset
from ufskit.integrity import HashCache, record_local, verify_local, verify_source
from ufskit.loaders import load
from ufskit.metrics import load_diagram, save_diagram
from ufskit.registry import RegistryError, load_registry, merge_overlay
from ufskit.results import concat_metrics
from ufskit.selection_io import Selection, load_selection, save_selection
from ufskit.selectors import (
    SELECTORS,
    SelectorError,
    check_selector,
    make_selector,
    plugins,
)
from ufskit.selectors.plugins import fitted_ranking

REGISTRY = load_registry(ROOT / "config/datasets.yaml")


@pytest.fixture(autouse=True)
def _fresh_plugins():
    plugins.resolve_plugin.cache_clear()
    yield
    plugins.resolve_plugin.cache_clear()


def local_entry(path, loader, **options):
    return {"path": str(path), "loader": loader, "options": options, "description": "test data"}


# ---- local datasets ---------------------------------------------------------------------


def test_local_csv_tsv_npy_npz_mat_load_to_the_same_dataset(tmp_path, rng):
    X = rng.standard_normal((12, 4))
    labels = np.array(["b", "a", "c"] * 4)
    frame = pd.DataFrame(X, columns=["g1", "g2", "g3", "g4"]).assign(id=np.arange(12), cls=labels)
    frame.to_csv(tmp_path / "d.csv", index=False)
    frame.to_csv(tmp_path / "d.tsv", sep="\t", index=False)
    codes = np.unique(labels, return_inverse=True)[1]
    np.save(tmp_path / "d.npy", np.column_stack([codes, X]))
    np.savez(tmp_path / "d.npz", X=X, y=labels)
    scipy.io.savemat(tmp_path / "d.mat", {"X": X, "Y": codes[:, None] + 1})
    entries = {
        "csv": local_entry(tmp_path / "d.csv", "table", label="cls", drop=["id"]),
        "tsv": local_entry(tmp_path / "d.tsv", "table", label="cls", drop=["id"]),
        "npy": local_entry(tmp_path / "d.npy", "npy", label=0),
        "npz": local_entry(tmp_path / "d.npz", "npz"),
        "mat": local_entry(tmp_path / "d.mat", "mat", x="X", y="Y"),
    }
    registry = merge_overlay(REGISTRY, None, entries)
    for name in entries:
        entry = {**registry["datasets"][name], "files": [entries[name]["path"]]}
        ds = load(name, entry, tmp_path / "unused-raw-root")
        np.testing.assert_allclose(ds.X, X, err_msg=name)
        np.testing.assert_array_equal(ds.y, codes, err_msg=name)  # a < b < c, coded 0, 1, 2
    assert list(load("csv", {**registry["datasets"]["csv"], "files": [entries["csv"]["path"]]}, tmp_path)
                .feature_names) == ["g1", "g2", "g3", "g4"]


def test_local_table_errors_name_the_column(tmp_path):
    (tmp_path / "d.csv").write_text("a,b,label\n1,x,0\n2,3,1\n")
    entry = {**local_entry(tmp_path / "d.csv", "table", label="label"), "files": [str(tmp_path / "d.csv")]}
    with pytest.raises(ValueError, match=r"column\(s\) \['b'\] are not numeric"):
        load("mine", entry, tmp_path)
    entry["options"] = {"label": "class"}
    with pytest.raises(ValueError, match=r"no column\(s\) \['class'\].*'a', 'b', 'label'"):
        load("mine", entry, tmp_path)


@pytest.mark.parametrize(("content", "message"), [
    ("a,b,label\n", r"d.csv has a header but no data rows; it must hold at least 2 samples"),
    ("a,b,label\n1,2,0\n", r"d.csv has only 1 data row; it must hold at least 2 samples"),
    ("", r"d.csv is not a readable table \(EmptyDataError"),
    ('a,b,label\n1,"2,0\n', r"d.csv is not a readable table \(ParserError"),
])
def test_local_table_without_samples_names_the_file(tmp_path, content, message):
    (tmp_path / "d.csv").write_text(content)
    entry = {**local_entry(tmp_path / "d.csv", "table", label="label"), "files": [str(tmp_path / "d.csv")]}
    with pytest.raises(ValueError, match=rf"dataset 'mine': {message}"):
        load("mine", entry, tmp_path)


def test_local_arrays_without_samples_name_the_file(tmp_path):
    np.savez(tmp_path / "d.npz", X=np.ones((1, 3)), y=np.zeros(1))
    entry = {**local_entry(tmp_path / "d.npz", "npz"), "files": [str(tmp_path / "d.npz")]}
    with pytest.raises(ValueError, match=r"d.npz has only 1 data row"):
        load("mine", entry, tmp_path)


def test_overlay_datasets_are_checked_with_the_registry(tmp_path):
    remote = {"mine_src": {"mirrored": False, "files": [{"path": "mine/m.mat", "url": "https://example.org/m.mat",
                                                          "sha256": "0" * 64}]}}
    merged = merge_overlay(REGISTRY, remote, {"mine": {"source": "mine_src", "loader": "mat", "options": {"x": "X", "y": "Y"},
                                                       "shape": [10, 3], "n_classes": 2, "description": "d"}})
    assert merged["datasets"]["mine"]["papers"] == [] and "wine" in merged["datasets"]
    with pytest.raises(RegistryError, match=r"sources.mine_src.files\[0\].sha256: must be 64"):
        merge_overlay(REGISTRY, {"mine_src": {**remote["mine_src"], "files": [{"path": "m.mat", "url": None,
                                                                               "sha256": "abc"}], "mirrored": True}}, None)
    assert "description" not in merge_overlay(REGISTRY, None, {"mine": {"path": "x.csv", "loader": "table"}})["datasets"]["mine"]
    with pytest.raises(RegistryError, match=r"datasets.mine: missing key\(s\) 'loader'"):
        merge_overlay(REGISTRY, None, {"mine": {"path": "x.csv"}})
    with pytest.raises(RegistryError, match=r"\['wine'\] already in the registry"):
        merge_overlay(REGISTRY, None, {"wine": local_entry("x.csv", "table", label="y")})
    with pytest.raises(RegistryError, match="unknown source 'nope'"):
        merge_overlay(REGISTRY, None, {"remote": {"source": "nope", "loader": "mat", "shape": [2, 2],
                                                   "n_classes": 2, "description": "d"}})


def test_local_file_change_is_detected_and_a_touch_is_not(tmp_path):
    data, record, cache = tmp_path / "d.csv", tmp_path / "rec.json", tmp_path / "cache.json"
    data.write_text("a,y\n1,0\n2,1\n")
    verify_local("mine", data, record, cache)  # no record yet: first use writes it
    record_local(data, record)
    verify_local("mine", data, record, cache)
    os.utime(data, ns=(1, 10**18))  # same bytes, new mtime: rehashed, accepted
    verify_local("mine", data, record, cache)
    data.write_text("a,y\n1,0\n3,1\n")
    with pytest.raises(IntegrityError, match=r"changed since its first use.*delete .*rec.json and rerun"):
        verify_local("mine", data, record, cache)
    record.write_text(record.read_text()[:30])  # a record cut short
    with pytest.raises(IntegrityError, match=rf"corrupt file {record}: unreadable as a JSON file"):
        verify_local("mine", data, record, cache)


def test_raw_files_are_reverified_cheaply(tmp_path, monkeypatch):
    raw = tmp_path / "raw"
    (raw / "s").mkdir(parents=True)
    (raw / "s/a.txt").write_text("hello\n")
    from ufskit.download import sha256_of

    source = {"mirrored": True, "files": [{"path": "s/a.txt", "url": None, "sha256": sha256_of(raw / "s/a.txt")}]}
    cache = tmp_path / "cache.json"
    assert verify_source("s", source, raw, cache) == 1 and cache.is_file()

    def no_hashing(path):
        raise AssertionError("an unchanged file was hashed again")

    monkeypatch.setattr("ufskit.integrity.sha256_of", no_hashing)
    assert verify_source("s", source, raw, cache) == 1  # size and mtime unchanged: from the cache
    monkeypatch.undo()
    (raw / "s/a.txt").write_text("hellO\n")
    with pytest.raises(IntegrityError, match=r"raw file .*s/a.txt of source 's' changed after download.*manifest"):
        verify_source("s", source, raw, cache)


def test_hash_cache_keys_by_size_and_mtime(tmp_path):
    f = tmp_path / "f"
    f.write_bytes(b"abc")
    cache = HashCache(tmp_path / "c.json")
    first = cache.digest(f)
    cache.save()
    f.write_bytes(b"abd")  # same size; the mtime moves
    assert HashCache(tmp_path / "c.json").digest(f) != first


# ---- user selectors ---------------------------------------------------------------------

MODULE = '''
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions

class ByImportance(BaseEstimator):
    def __init__(self, power=1.0):
        self.power = power
    def fit(self, X, y=None):
        self.feature_importances_ = np.asarray(X).var(axis=0) ** self.power
        return self

class ByRanking(BaseEstimator):
    def fit(self, X, y=None):
        self.ranking_ = np.array([3, 1, 2, 1])
        return self

class NoRanking(BaseEstimator):
    def fit(self, X, y=None):
        return self

class Checked(BaseEstimator):
    """Declares scikit-learn's parameter constraints: its values are checked at start-up."""
    _parameter_constraints = {"power": [Interval(Real, 0, None, closed="neither")], "mode": [StrOptions({"a", "b"})]}
    def __init__(self, power=1.0, mode="a"):
        self.power = power
        self.mode = mode
    def fit(self, X, y=None):
        self._validate_params()
        self.scores_ = np.asarray(X).var(axis=0) ** self.power
        return self

class RefusesInInit(BaseEstimator):
    def __init__(self, k=1):
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        self.k = k
    def fit(self, X, y=None):
        return self

class NeedsArgument(BaseEstimator):
    def __init__(self, k):
        self.k = k
    def fit(self, X, y=None):
        return self
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "user_sel.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    return "user_sel"


def test_selector_by_import_path(user_module, rng):
    X = rng.standard_normal((30, 3)) * np.array([1.0, 3.0, 2.0])
    sel = make_selector(f"{user_module}:ByImportance", power=2.0).fit(X)
    order, scores = fitted_ranking(sel, 3)
    np.testing.assert_array_equal(order, [1, 2, 0])
    np.testing.assert_allclose(scores, X.var(axis=0) ** 2)
    assert SELECTORS[f"{user_module}:ByImportance"].__name__ == "ByImportance"  # as the benchmark looks it up
    with pytest.raises(SelectorError, match=r"has no parameter\(s\) \['powr'\] \('powr': did you mean 'power'\?\)"):
        check_selector(f"{user_module}:ByImportance", {"powr": 1})
    with pytest.raises(SelectorError, match="has no attribute 'Nope'"):
        check_selector(f"{user_module}:Nope", {})
    with pytest.raises(SelectorError, match="cannot be built without arguments"):
        check_selector(f"{user_module}:NeedsArgument", {})


def test_ranking_contract_precedence_and_ties(user_module, rng):
    X = rng.standard_normal((10, 4))
    order, scores = fitted_ranking(make_selector(f"{user_module}:ByRanking").fit(X), 4)
    np.testing.assert_array_equal(order, [1, 3, 2, 0])  # ranks 1, 1 tied: the lower index first
    np.testing.assert_array_equal(scores, [-3, -1, -2, -1])
    with pytest.raises(SelectorError, match="exposes none of ranking_, scores_, feature_importances_"):
        fitted_ranking(make_selector(f"{user_module}:NoRanking").fit(X), 4)
    with pytest.raises(SelectorError, match=r"shape \(4,\); expected \(5,\)"):
        fitted_ranking(make_selector(f"{user_module}:ByRanking").fit(X), 5)


def test_selector_by_entry_point(user_module, monkeypatch, rng):
    point = metadata.EntryPoint(name="Mine", value=f"{user_module}:ByImportance", group=plugins.ENTRY_POINT_GROUP)

    def entry_points(group=None):
        return [point] if group == plugins.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(plugins.metadata, "entry_points", entry_points)
    sel = make_selector("Mine", power=1.0).fit(rng.standard_normal((8, 2)))
    assert hasattr(sel, "feature_importances_")
    with pytest.raises(SelectorError, match=r"unknown selector 'Mien'; did you mean 'Mine'\?.*entry points \(ufskit.selectors\): Mine"):
        make_selector("Mien")


# ---- config files and start-up checks ---------------------------------------------------


def test_duplicate_keys_are_errors_naming_key_file_and_line(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("methods:\n  LS: {selector: LaplacianScore}\n  LS: {selector: SPEC}\n")
    with pytest.raises(ConfigError, match=r"c.yaml, line 3: duplicate key 'LS' \(first at line 2\)"):
        load_yaml(path)
    path.write_text("base: &b {a: 1, b: 2}\nother:\n  <<: *b\n  b: 3\n")  # a merge key, then an override: fine
    assert load_yaml(path)["other"] == {"a": 1, "b": 3}


def test_every_config_file_of_the_project_is_free_of_duplicate_keys():
    paths = sorted((ROOT / "config").rglob("*.yaml")) + sorted((ROOT / "profiles").rglob("*.yaml"))
    assert len(paths) > 5
    for path in paths:
        load_yaml(path)


@pytest.mark.parametrize(("spec", "reason"), [
    ([0, 2], "0 is not an integer >= 1"),
    ([], "the list is empty"),
    ({"fractions": [0.5, 1]}, r"fractions \[1\] are not floats in \(0, 1\]"),
    ({"upto": 10}, "exactly the keys upto and step"),
    ("some", "is neither a list"),
])
def test_n_features_errors_say_why_and_which_forms(spec, reason):
    assert n_features_problem(spec) is not None
    with pytest.raises(ConfigError, match=reason + r".*Expected a list of integers >= 1.*'all'.*upto.*fractions"):
        check_n_features({"e": {"n_features": spec}})


@pytest.mark.parametrize("spec", [[1, 5], "all", {"upto": 10, "step": 2}, {"fractions": [0.1, 1.0]}])
def test_valid_n_features_pass(spec):
    assert n_features_problem(spec) is None


def test_methods_and_counts_are_checked_before_any_job():
    exp = {"datasets": ["wine"], "n_features": [2, 5],
           "methods": {"LS": {"selector": "LaplacianScore", "grid": {"n_neighbour": [5, 10]}}}}
    with pytest.raises(ConfigError, match=r"experiments.e.methods.LS: .*no parameter\(s\) \['n_neighbour'\]"):
        config_check.check_methods({"e": exp})
    exp["methods"]["LS"] = {"selector": "LaplacianScore"}
    config_check.check_methods({"e": exp})
    exp["n_features"] = {"upto": 20, "step": 5}
    with pytest.raises(ConfigError, match=r"up to 20 features, but dataset 'wine' has d = 13"):
        config_check.check_counts({"e": exp}, REGISTRY)
    config_check.check_counts({"e": exp}, REGISTRY, excluded={"wine": "left out"})
    # kernel UDFS ranks one kernel feature per sample: d does not bound its counts
    exp["methods"] = {"K": {"selector": "KernelUDFS"}}
    config_check.check_counts({"e": exp}, REGISTRY)


def _experiment(**methods):
    return {"datasets": ["wine"], "n_features": [2], "metrics": {"kmeans": {"n_runs": 10, "n_init": 10}},
            "methods": methods}


@pytest.mark.parametrize(("method", "message"), [
    ({"selector": "LaplacianScore", "params": {"n_neighbors": -1}},
     r"The 'n_neighbors' parameter of LaplacianScore must be a str among \{'auto'\} or an int in the range \[1, inf\)\. Got -1 instead"),
    ({"selector": "IVFS", "grid": {"loss": ["linf", "foo"]}},
     r"The 'loss' parameter of IVFS must be a str among \{.*'l1'.*\}\. Got 'foo' instead"),
    ({"selector": "NRFS", "params": {"noise_fraction": 1.0}},
     r"'noise_fraction' parameter of NRFS must be a float in the range \[0.0, 1.0\). Got 1.0"),
    ({"selector": "SPEC", "params": {"style": 4}}, r"'style' parameter of SPEC must be a int among \{1, 2, 3\}. Got 4"),
    ({"selector": "Random", "params": {"n_features_to_select": 1.5}}, r"'n_features_to_select' parameter of Random"),
    ({"selector": "LaplacianScore", "metrics": {"knn": {"n_splits": 1}}},
     r"metrics.knn overrides a metric the experiment does not evaluate; it evaluates \['kmeans'\]"),
    ({"selector": "Random", "metrics": {"kmeans": {"n_runs": 1.5}}}, r"metrics.kmeans.n_runs = 1.5 must be of type int, as the experiment's 10"),
])
def test_parameter_values_are_checked_at_start_up(method, message):
    with pytest.raises(ConfigError, match=r"^experiments\.e\.methods\.M: .*" + message):
        config_check.check_methods({"e": _experiment(M=method)})


def test_placeholders_and_valid_values_pass_the_start_up_check():
    config_check.check_methods({"e": _experiment(
        MCFS={"selector": "MCFS", "params": {"n_clusters": "n_classes", "max_nonzero": [20, 0.5]}},
        IVFS={"selector": "IVFS", "grid": {"subset_samples": ["upto100", "ivfs_table", 0.1, 50]}},
        NRFS={"selector": "NRFS", "params": {"n_neighbors": None, "sampling": False, "fold": 0}},
        Random={"selector": "Random", "reps": 20, "metrics": {"kmeans": {"n_runs": 1}}})})


def test_every_builtin_selector_constrains_exactly_its_parameters_and_accepts_its_defaults():
    """A parameter added to a selector without an entry in its class's ``_parameter_constraints`` would go unchecked."""
    for name, cls in SELECTORS.items():
        assert set(cls._parameter_constraints) == set(cls().get_params()), name
        cls()._validate_params()


@pytest.mark.parametrize("name", sorted(SELECTORS))
def test_every_selector_checks_its_values_at_fit(name):
    """fit goes through the constraints for every selector, also one that overrides fit (KernelUDFS)."""
    X = np.random.default_rng(0).standard_normal((12, 4))
    with pytest.raises(ValueError, match=f"'n_features_to_select' parameter of {SELECTORS[name].__name__}"):
        SELECTORS[name](n_features_to_select="half").fit(X)


def test_fit_checks_the_values_before_reading_the_data():
    with pytest.raises(ValueError, match="'weight' parameter of LaplacianScore must be a str among"):
        make_selector("LaplacianScore", weight="gauss").fit(np.full((3, 2), np.nan))  # X is never read


def test_user_selector_values_are_checked_when_it_declares_constraints(user_module):
    with pytest.raises(ConfigError, match=r"experiments.e.methods.Mine: selector 'user_sel:Checked': "
                                          r"The 'mode' parameter of Checked must be a str among \{.*\}. Got 'c'"):
        config_check.check_methods({"e": _experiment(Mine={"selector": f"{user_module}:Checked", "grid": {"mode": ["a", "c"]}})})
    with pytest.raises(ConfigError, match=r"selector 'user_sel:RefusesInInit': k must be >= 1, got 0"):
        config_check.check_methods({"e": _experiment(Mine={"selector": f"{user_module}:RefusesInInit", "params": {"k": 0}})})
    # no constraints declared: nothing is known about the values, so any passes
    config_check.check_methods({"e": _experiment(Mine={"selector": f"{user_module}:ByImportance", "params": {"power": -7}})})
    config_check.check_methods({"e": _experiment(Mine={"selector": f"{user_module}:Checked", "params": {"power": 2}})})


def test_overlay_paths_are_relative_to_the_file_naming_them(tmp_path):
    (tmp_path / "sub").mkdir()
    first, second = tmp_path / "a.yaml", tmp_path / "sub/b.yaml"
    first.write_text("datasets: {x: {path: x.csv}}\npython_path: [lib]\n")
    second.write_text("datasets: {y: {path: data/y.csv}}\n")
    config = {"datasets": {"x": {"path": "x.csv"}, "y": {"path": "data/y.csv"}, "z": {"path": "z.csv"}},
              "python_path": ["lib"]}
    parsed = startup.read_config_files([first, second])
    startup.resolve_overlay_paths(config, parsed, tmp_path / "cwd")
    assert config["datasets"]["x"]["path"] == str(tmp_path / "x.csv")
    assert config["datasets"]["y"]["path"] == str(tmp_path / "sub/data/y.csv")
    assert config["datasets"]["z"]["path"] == str(tmp_path / "cwd/z.csv")  # from --config: the working directory
    assert config["python_path"] == [str(tmp_path / "lib")]


# ---- intermediates and provenance -------------------------------------------------------


def test_truncated_intermediates_are_named_with_what_to_do(tmp_path, rng):
    data, selection = tmp_path / "prep.npz", tmp_path / "rep0.npz"
    save_dataset(Dataset(rng.standard_normal((20, 30)), np.arange(20) % 2), data)
    save_selection(Selection(np.arange(30), np.zeros(30), 0.1, {}), selection)
    for path, reader, what in ((data, load_dataset, "prepared dataset"), (selection, load_selection, "selection")):
        content = path.read_bytes()
        path.write_bytes(content[: len(content) // 2])
        with pytest.raises(IntegrityError, match=rf"corrupt file {path}: unreadable as a {what}.*delete it and rerun"):
            reader(path)
    with pytest.raises(FileNotFoundError):
        load_dataset(tmp_path / "absent.npz")
    table = tmp_path / "rep0.parquet"
    pd.DataFrame({"metric": ["a"] * 50, "value": np.arange(50.0)}).to_parquet(table)
    table.write_bytes(table.read_bytes()[:-40])
    with pytest.raises(IntegrityError, match=rf"corrupt file {table}: unreadable as a metrics table.*delete it and rerun"):
        concat_metrics([table], experiment="e")


def test_truncated_diagram_is_named_with_what_to_do(tmp_path):
    diagram = tmp_path / "h1_diagram.npz"
    bars = np.array([[0.1, 0.3], [0.2, 0.25]])
    save_diagram(bars, diagram)
    np.testing.assert_array_equal(load_diagram(diagram), bars)
    save_diagram(np.empty((0, 2)), tmp_path / "empty.npz")  # a dataset without a loop: valid, no bar
    assert load_diagram(tmp_path / "empty.npz").shape == (0, 2)
    content = diagram.read_bytes()
    diagram.write_bytes(content[: len(content) // 2])
    with pytest.raises(IntegrityError, match=rf"corrupt file {diagram}: unreadable as a persistence diagram.*delete it and rerun"):
        load_diagram(diagram)
    np.savez(diagram, diagram=np.arange(3.0))  # readable, but not a diagram
    with pytest.raises(IntegrityError, match=r"corrupt file .*: unreadable as a persistence diagram .*shape \(3,\)"):
        load_diagram(diagram)


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


def test_provenance_has_commit_modified_flag_and_config_hash(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "f").write_text("1")
    git(repo, "add", "f")
    git(repo, "commit", "-qm", "c")
    part = tmp_path / "m.parquet"
    pd.DataFrame({"dataset": ["a"], "value": [1.0]}).to_parquet(part)
    clean = concat_metrics([part], experiment="e", repo=repo, config={"seed": 1})
    assert len(clean["git_commit"].iat[0]) == 40 and not clean["git_modified"].iat[0]
    (repo / "f").write_text("2")
    edited = concat_metrics([part], experiment="e", repo=repo, config={"seed": 2})
    assert edited["git_modified"].iat[0]
    assert edited["config_sha256"].iat[0] != clean["config_sha256"].iat[0]
    out = tmp_path / "all.parquet"
    edited.to_parquet(out)
    assert pd.read_parquet(out).attrs["config"] == '{"seed": 2}'
    assert concat_metrics([part], experiment="e")["git_modified"].iat[0] is None  # no repository: unknown
