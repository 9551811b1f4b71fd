"""Loaders: hand-made files for the option logic, the mirror for every real data set.

Registry entries are written inline here (config/datasets.yaml is maintained separately).
"""

from __future__ import annotations

import csv

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from ufskit.loaders import LOADERS, load, matrices, source_files
from ufskit.synthetic import nrfs_synthetic


def mat_entry(path, x="X", y="Y", **options):
    return {"files": [path], "loader": "mat", "options": {"x": x, "y": y, **options}}


def uci_entry(files, **options):
    files = [files] if isinstance(files, str) else files
    return {"files": files, "loader": "uci", "options": {"files": files, **options}}


# ---------------------------------------------------------------- mat: labels, classes, sampling, sparse data


@pytest.fixture
def small_mat(tmp_path):
    """12 rows: labels 9/3/5 (four each), sparse X whose row i holds i in column i % 4."""
    labels = np.array([9, 3, 5] * 4)
    rows = np.arange(12)
    X = sp.csc_matrix((rows.astype(float), (rows, rows % 4)), shape=(12, 6))
    scipy.io.savemat(tmp_path / "small.mat", {"fea": X, "gnd": labels[:, None]})
    return tmp_path, labels


def test_mat_labels_recoded_in_sorted_order(small_mat):
    root, labels = small_mat
    ds = load("small", mat_entry("small.mat", x="fea", y="gnd"), root)
    assert ds.info["label_values"] == [3, 5, 9]
    np.testing.assert_array_equal(ds.y, np.searchsorted([3, 5, 9], labels))
    assert ds.X.dtype == np.float64 and ds.X.shape == (12, 6)
    np.testing.assert_array_equal(ds.X[np.arange(12), np.arange(12) % 4], np.arange(12))
    assert ds.info["n_constant_columns"] == 2  # columns 4, 5 are all zero: kept, recorded


def test_mat_classes_keep_rows_in_given_label_order(small_mat):
    root, labels = small_mat
    ds = load("small", mat_entry("small.mat", x="fea", y="gnd", classes=[9, 3]), root)
    kept = np.flatnonzero(np.isin(labels, [9, 3]))
    np.testing.assert_array_equal(ds.X[:, :4].sum(axis=1), kept)  # row i has value i
    np.testing.assert_array_equal(ds.y, (labels[kept] == 3).astype(int))  # 9 -> 0, 3 -> 1
    assert ds.info["label_values"] == [9, 3]


def test_mat_per_class_sampling_is_reproducible(small_mat):
    root, labels = small_mat
    entry = mat_entry("small.mat", x="fea", y="gnd", classes=[3, 5, 9], per_class=2)
    a, b = load("s", entry, root, seed=1), load("s", entry, root, seed=1)
    rows = np.asarray(a.info["sampled_rows"])
    assert rows.tolist() == sorted(rows.tolist()) and len(rows) == 6
    assert np.bincount(a.y).tolist() == [2, 2, 2]
    np.testing.assert_array_equal(labels[rows], np.array([3, 5, 9])[a.y])
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.X[:, :4].sum(axis=1), rows)
    others = {tuple(load("s", entry, root, seed=s).info["sampled_rows"]) for s in range(2, 8)}
    assert len(others - {tuple(rows)}) >= 1
    assert a.info["sample_seed"] == 1


def test_mat_errors(small_mat, monkeypatch):
    root, _ = small_mat
    with pytest.raises(ValueError, match="only 4 rows"):
        load("s", mat_entry("small.mat", x="fea", y="gnd", per_class=5), root)
    with pytest.raises(ValueError, match=r"classes \[7\] are not among the labels"):
        load("s", mat_entry("small.mat", x="fea", y="gnd", classes=[3, 7]), root)
    with pytest.raises(ValueError, match="has no variable 'X'.*'fea', 'gnd'"):
        load("s", mat_entry("small.mat"), root)
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['rows'\]"):
        load("s", mat_entry("small.mat", x="fea", y="gnd", rows=3), root)
    monkeypatch.setattr(matrices, "MAX_DENSE_CELLS", 30)
    with pytest.raises(ValueError, match="refusing to densify 12 x 6"):
        load("s", mat_entry("small.mat", x="fea", y="gnd"), root)
    assert load("s", mat_entry("small.mat", x="fea", y="gnd", per_class=1), root).X.shape == (3, 6)


# ---------------------------------------------------------------- load(): dispatch and registry checks


def test_shape_and_class_count_checked(small_mat):
    root, _ = small_mat
    entry = mat_entry("small.mat", x="fea", y="gnd")
    assert load("s", {**entry, "shape": [12, 6], "n_classes": 3}, root).X.shape == (12, 6)
    assert load("s", {**entry, "shape": [12, None]}, root).X.shape == (12, 6)  # null: d not checked
    with pytest.raises(ValueError, match="registry says 11 x None"):
        load("s", {**entry, "shape": [11, None]}, root)
    with pytest.raises(ValueError, match="dataset 's': loaded 12 x 6 but the registry says 12 x 7"):
        load("s", {**entry, "shape": [12, 7]}, root)
    with pytest.raises(ValueError, match="loaded 3 classes but the registry says 4"):
        load("s", {**entry, "n_classes": 4}, root)


def test_unknown_loader_and_missing_file(small_mat):
    root, _ = small_mat
    with pytest.raises(ValueError, match=r"unknown loader 'arff'; known loaders: \['mat', "):
        load("s", {"loader": "arff", "files": ["small.mat"]}, root)
    with pytest.raises(FileNotFoundError, match="nothere.mat"):
        load("s", mat_entry("nothere.mat"), root)


def test_source_files_from_registry_sources(small_mat):
    root, _ = small_mat
    (root / "notes.txt").write_text("documentation")
    sources = {"small_src": {"files": [{"path": "small.mat", "sha256": "..."}, {"path": "notes.txt"}]},
               "listed": {"file_list": {"path": "t/FILES.tsv"}}}
    entry = {"source": "small_src", "loader": "mat", "options": {"x": "fea", "y": "gnd"}}
    assert source_files(entry, sources) == ["small.mat", "notes.txt"]
    assert source_files({"source": "listed"}, sources) == ["t/FILES.tsv"]
    assert source_files({"source": None}, sources) == []
    assert load("s", entry, root, sources=sources).info["files"] == ["small.mat", "notes.txt"]
    with pytest.raises(ValueError, match="source 'small_src' is not among the sources"):
        load("s", entry, root)
    with pytest.raises(ValueError, match="reads the source's first file, which must end with .mat"):
        load("s", {**entry, "files": ["notes.txt", "small.mat"]}, root)


def test_synthetic_loader_uses_seed_and_options(tmp_path):
    entry = {"loader": "nrfs_synthetic", "options": {"n_per_cluster": 5, "n_noise": 2, "n_features": 7},
             "shape": [22, 7], "n_classes": 4}
    ds = load("syn", entry, tmp_path, seed=4)
    np.testing.assert_array_equal(ds.X, nrfs_synthetic(5, 2, 7, random_state=4).X)
    assert ds.info["noise_indices"] == [20, 21]
    with pytest.raises(ValueError, match="unknown option"):
        load("syn", {"loader": "nrfs_synthetic", "options": {"noise": 3}}, tmp_path)
    assert set(LOADERS) == {"mat", "rdata_list", "uci", "newsgroups_raw", "nrfs_synthetic", "table", "npy", "npz"}


# ---------------------------------------------------------------- uci: hand-made tables


def write_rows(path, rows, delimiter=","):
    with open(path, "w", newline="") as fh:
        csv.writer(fh, delimiter=delimiter, lineterminator="\n").writerows(rows)


@pytest.fixture
def table(tmp_path):
    """id, a (numeric, one '?'), colour (nominal, one '?'), b (numeric), label (header row)."""
    write_rows(tmp_path / "t.csv", [
        ["id", "a", "colour", "b", "label"],
        ["r1", "1", "red", "10", "yes"],
        ["r2", "?", "blue", "20", "no"],
        ["r3", "4", "?", "30", "yes"],
        ["r4", "7", "red", "40", "maybe"],
    ])
    return tmp_path


def test_uci_impute_mean_and_one_hot(table):
    opts = {"header": True, "label": "label", "drop": ["id"], "missing": "?", "missing_policy": "impute_mean",
                "categorical": ["colour"]}
    ds = load("t", uci_entry("t.csv", **opts), table)
    assert ds.feature_names.tolist() == ["a", "colour=blue", "colour=red", "b"]  # '?' gives all zeros
    np.testing.assert_array_equal(ds.X, [[1, 0, 1, 10], [4, 1, 0, 20], [4, 0, 0, 30], [7, 0, 1, 40]])
    assert ds.info["label_values"] == ["maybe", "no", "yes"]
    np.testing.assert_array_equal(ds.y, [2, 1, 2, 0])
    assert ds.info["imputed_mean"] == {"a": 1}
    assert ds.info["one_hot"] == {"colour": ["blue", "red"]}
    assert ds.info["columns_dropped"] == ["id"]


def test_uci_drop_rows_drop_columns_and_ordinal(table):
    base = {"header": True, "label": -1, "drop": [0], "missing": "?", "ordinal": ["colour"]}
    ds = load("t", uci_entry("t.csv", **base, missing_policy="drop_rows"), table)
    np.testing.assert_array_equal(ds.X, [[1, 1, 10], [7, 1, 40]])  # codes blue 0, red 1
    assert ds.info["rows_dropped"]["rows"] == [1, 2]
    assert ds.info["ordinal_codes"] == {"colour": ["blue", "red"]}
    np.testing.assert_array_equal(ds.y, [1, 0])  # labels of rows 0 and 3: yes, maybe
    ds = load("t", uci_entry("t.csv", **base, missing_policy="drop_columns"), table)
    assert ds.feature_names.tolist() == ["b"] and ds.X.shape == (4, 1)
    assert ds.info["columns_dropped_missing"] == ["a", "colour"]
    # without a missing marker, '?' is a level of its own (anneal's "not applicable")
    ds = load("t", uci_entry("t.csv", header=True, label=-1, drop=[0, 1], ordinal=["colour"]), table)
    np.testing.assert_array_equal(ds.X, [[2, 10], [1, 20], [0, 30], [2, 40]])  # ? 0, blue 1, red 2


def test_uci_label_map_merges_classes(table):
    opts = {"header": True, "label": "label", "drop": ["id", "colour"], "missing": "?", "missing_policy": "impute_mean",
                "label_map": {"maybe": "yes"}}
    ds = load("t", uci_entry("t.csv", **opts), table)
    assert ds.info["label_values"] == ["no", "yes"]
    np.testing.assert_array_equal(ds.y, [1, 0, 1, 1])


def test_uci_errors(table):
    base = {"header": True, "label": "label", "drop": ["id"]}
    with pytest.raises(ValueError, match="column colour has non-numeric value 'red'"):
        load("t", uci_entry("t.csv", **base, missing="?", missing_policy="impute_mean"), table)
    with pytest.raises(ValueError, match=r"missing values in columns \{'a': 1\}; choose a missing_policy"):
        load("t", uci_entry("t.csv", **base, missing="?", categorical=["colour"]), table)
    with pytest.raises(ValueError, match="missing_policy must be one of"):
        load("t", uci_entry("t.csv", **base, missing_policy="zero"), table)
    with pytest.raises(ValueError, match="unknown column 'size'"):
        load("t", uci_entry("t.csv", header=True, label="size"), table)
    with pytest.raises(ValueError, match="column 9 is out of range"):
        load("t", uci_entry("t.csv", header=True, label=9), table)
    with pytest.raises(ValueError, match="no source file"):
        load("t", {"files": ["t.csv"], "loader": "uci", "options": {"files": ["u.csv"], "label": 0}}, table)
    with pytest.raises(ValueError, match="no feature columns left"):
        load("t", uci_entry("t.csv", header=True, label="b", drop=["id", "a", "colour", "label"]), table)
    with pytest.raises(ValueError, match="label column is missing in rows"):
        load("t", uci_entry("t.csv", header=True, label="colour", drop=["id"], missing="?",
                            missing_policy="impute_mean"), table)


def test_uci_whitespace_files_joined_in_order(tmp_path):
    (tmp_path / "uci" / "w").mkdir(parents=True)
    (tmp_path / "uci" / "w" / "a.data").write_text("1 2.5 x  \n3 ? y \n")
    (tmp_path / "uci" / "w" / "b.test").write_text(" 5 6 x\n")
    entry = uci_entry(["uci/w/b.test", "uci/w/a.data"], sep="whitespace", label=2, missing="?",
                      missing_policy="impute_mean")
    entry["options"]["files"] = ["a.data", "w/b.test"]  # trailing parts of source paths, in reading order
    ds = load("w", entry, tmp_path)
    np.testing.assert_array_equal(ds.X, [[1, 2.5], [3, 4.25], [5, 6]])
    np.testing.assert_array_equal(ds.y, [0, 1, 0])
    assert ds.info["rows_per_file"] == [2, 1] and ds.feature_names.tolist() == ["c0", "c1"]


# ---------------------------------------------------------------- newsgroups_raw: a tiny hand-made corpus


def test_newsgroups_raw_hand_corpus(tmp_path):
    posts = {
        ("20news-bydate-train", "rec.autos", "10"): "Subject: Cars\nFrom: x@y\n\nThe cars are running.",
        ("20news-bydate-test", "rec.autos", "7"): "From: z@y\nSubject: engine\n\nEngine runs.",
        ("20news-bydate-train", "sci.med", "3"): "Subject: Doctors\n\nDoctor and cars.",
        ("20news-bydate-train", "sci.space", "1"): "Subject: ignored group\n\nOrbit.",
    }
    for (split, group, msg), body in posts.items():
        (tmp_path / "ng" / split / group).mkdir(parents=True, exist_ok=True)
        (tmp_path / "ng" / split / group / msg).write_text(body)
    entry = {"files": ["ng"], "loader": "newsgroups_raw", "options": {"groups": ["sci.med", "rec.autos"]}}
    ds = load("ng", entry, tmp_path)
    # order: sci.med first (groups order), then rec.autos by split (test < train)
    assert ds.info["documents"] == ["20news-bydate-train/sci.med/3", "20news-bydate-test/rec.autos/7",
                                    "20news-bydate-train/rec.autos/10"]
    np.testing.assert_array_equal(ds.y, [0, 1, 1])
    assert ds.feature_names.tolist() == ["car", "doctor", "engin", "run"]
    np.testing.assert_array_equal(ds.X, [[1, 2, 0, 0], [0, 0, 2, 1], [2, 0, 0, 1]])
    raw = load("ng", {**entry, "options": {**entry["options"], "text_steps": []}}, tmp_path)
    assert "running" in raw.feature_names.tolist() and "the" in raw.feature_names.tolist()
    with pytest.raises(ValueError, match="unknown text step 'lower'"):
        load("ng", {**entry, "options": {**entry["options"], "text_steps": ["lower"]}}, tmp_path)
    with pytest.raises(ValueError, match=r"classes \['sci.crypt'\] are not among the labels"):
        load("ng", {**entry, "options": {"groups": ["sci.med", "sci.crypt"]}}, tmp_path)


# ---------------------------------------------------------------- every mirrored data set

MICROARRAY = {  # dataset -> (file, x key, y key)
    "lymphoma": ("lymphoma.mat", "X", "Y"),
    "orlraws10P": ("orlraws10P.mat", "X", "Y"),
    "pixraw10P": ("pixraw10P.mat", "X", "Y"),
    "Prostate-GE": ("Prostate-GE.mat", "X", "Y"),
    "warpPIE10P": ("warpPIE10P.mat", "X", "Y"),
    "COIL20": ("COIL20.mat", "X", "Y"),
    "Isolet": ("Isolet.mat", "X", "Y"),
    "RELATHE": ("RELATHE.mat", "X", "Y"),
    "ORL": ("ORL.mat", "X", "Y"),
    "11_Tumors": ("11_Tumors.mat", "ins", "lab"),
    "Leukemia2": ("Leukemia2.mat", "X", "Y"),
    "Brain_Tumor2": ("Brain_Tumor_2.mat", "X", "Y"),
}


def manifest_row(mirror, folder, file):
    with open(mirror / folder / "MANIFEST.tsv", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            if row["file"] == file:
                return int(row["n_samples"]), int(row["n_features"]), int(row["n_classes"])
    raise LookupError(file)


@pytest.mark.parametrize("name", sorted(MICROARRAY))
def test_mirror_mat_matches_manifest(mirror, name):
    file, x, y = MICROARRAY[name]
    n, d, c = manifest_row(mirror, "microarray", file)
    ds = load(name, {**mat_entry(f"microarray/{file}", x=x, y=y), "shape": [n, d], "n_classes": c}, mirror)
    assert np.bincount(ds.y).min() > 0 and np.isfinite(ds.X).all()


def test_mirror_gordon_with_probe_names(mirror):
    entry = {"files": ["microarray/gordon.RData"], "loader": "rdata_list",
             "options": {"object": "gordon", "x": "x", "y": "y"}, "shape": [181, 12533], "n_classes": 2}
    ds = load("gordon", entry, mirror)
    assert ds.info["label_values"] == ["adenocarcinoma", "mesothelioma"]
    assert np.bincount(ds.y).tolist() == [150, 31]
    assert ds.feature_names[:2].tolist() == ["1000_at", "1001_at"] and len(set(ds.feature_names)) == 12533


@pytest.mark.parametrize("name, file, classes, d", [
    ("20NewsgroupA", "text/20Newsgroups.mat", [1, 2, 8, 14], 26214),
    ("20NewsgroupB", "text/20Newsgroups.mat", [6, 9, 15, 20], 26214),
    ("Reuters21578A", "text/Reuters21578.mat", [1, 2, 3, 4, 5], 18933),
])
def test_mirror_text_subsets(mirror, name, file, classes, d):
    entry = {**mat_entry(file, x="fea", y="gnd", classes=classes, per_class=200),
             "shape": [200 * len(classes), d], "n_classes": len(classes)}
    ds = load(name, entry, mirror, seed=0)
    assert np.bincount(ds.y).tolist() == [200] * len(classes)
    assert ds.info["label_values"] == classes and ds.info["sparse_source"]
    assert np.all(ds.X == np.round(ds.X)) and ds.X.min() == 0  # raw term counts
    if name == "Reuters21578A":  # the sample depends on the seed only
        again, other = load(name, entry, mirror, seed=0), load(name, entry, mirror, seed=1)
        assert again.info["sampled_rows"] == ds.info["sampled_rows"] != other.info["sampled_rows"]
        np.testing.assert_array_equal(again.X, ds.X)


ANNEAL_NOMINAL = [0, 1, 2, 5, 6, 7, *range(9, 32), 35, 37]  # nominal attributes of anneal.names but bore
UCI = {  # dataset -> (files, options, (n, d, c)), as in config/datasets.yaml unless noted
    "wine": ("uci/wine/wine.data", {"label": 0}, (178, 13, 3)),
    "breast_cancer_wpbc": ("uci/wpbc/wpbc.data",
                           {"label": 1, "drop": [0], "missing": "?", "missing_policy": "impute_mean"}, (198, 33, 2)),
    "ionosphere": ("uci/ionosphere/ionosphere.data", {"label": -1}, (351, 34, 2)),
    "dermatology": ("uci/dermatology/dermatology.data",
                    {"label": -1, "missing": "?", "missing_policy": "drop_rows"}, (358, 34, 6)),
    "anneal": (["uci/anneal/anneal.data", "uci/anneal/anneal.test"],
               {"label": -1, "missing": "?", "categorical": ANNEAL_NOMINAL}, (898, 53, 5)),
    "anneal_ordinal": (["uci/anneal/anneal.data", "uci/anneal/anneal.test"],  # one column per attribute
                       {"label": -1, "ordinal": ANNEAL_NOMINAL}, (898, 38, 5)),
    "horse_colic": (["uci/horse-colic/horse-colic.data", "uci/horse-colic/horse-colic.test"],
                    {"sep": "whitespace", "label": 23, "drop": [2], "missing": "?", "missing_policy": "impute_mean"},
                    (368, 26, 2)),
    "horse_colic_27": (["uci/horse-colic/horse-colic.data", "uci/horse-colic/horse-colic.test"],  # paper's d
                       {"sep": "whitespace", "label": 23, "missing": "?", "missing_policy": "impute_mean"},
                       (368, 27, 2)),
    "parkinsons": ("uci/parkinsons/parkinsons.data", {"header": True, "label": "status", "drop": ["name"]},
                   (195, 22, 2)),
    "zoo": ("uci/zoo/zoo.data", {"label": -1, "drop": [0]}, (101, 16, 7)),
    "wdbc": ("uci/wdbc/wdbc.data", {"label": 1, "drop": [0]}, (569, 30, 2)),
    "spect": (["uci/spect/SPECT.train", "uci/spect/SPECT.test"], {"label": 0}, (267, 22, 2)),
    "pima_diabetes": ("uci/pima-indians-diabetes/pima-indians-diabetes.csv", {"label": -1}, (768, 8, 2)),
    "german_numeric": ("uci/german/german.data-numeric", {"sep": "whitespace", "label": -1}, (1000, 24, 2)),
    "new_thyroid": ("uci/new-thyroid/new-thyroid.data", {"label": 0}, (215, 5, 3)),
}


def load_uci_case(name, mirror):
    files, options, (n, d, c) = UCI[name]
    return load(name, {**uci_entry(files, **options), "shape": [n, d], "n_classes": c}, mirror)


@pytest.mark.parametrize("name", sorted(UCI))
def test_mirror_uci(mirror, name):
    ds = load_uci_case(name, mirror)
    assert np.isfinite(ds.X).all() and ds.feature_names.shape == (UCI[name][2][1],)


def test_mirror_uci_details(mirror):
    derm = load_uci_case("dermatology", mirror)
    assert derm.info["rows_dropped"]["rows"] == [33, 34, 35, 36, 262, 263, 264, 265]
    wpbc = load_uci_case("breast_cancer_wpbc", mirror)
    assert wpbc.info["imputed_mean"] == {"c34": 4} and wpbc.info["label_values"] == ["N", "R"]
    assert np.bincount(wpbc.y).tolist() == [151, 47]
    anneal = load_uci_case("anneal", mirror)
    assert anneal.info["label_values"] == ["1", "2", "3", "5", "U"]
    assert anneal.info["rows_per_file"] == [798, 100]
    assert anneal.info["one_hot"]["c0"] == ["TN", "ZS"] and anneal.info["one_hot"]["c18"] == []
    assert anneal.info["n_constant_columns"] == 1  # product-type: always C
    ordinal = load_uci_case("anneal_ordinal", mirror)
    assert ordinal.info["ordinal_codes"]["c2"] == ["?", "A", "K", "M", "R", "S", "V", "W"]
    assert ordinal.info["n_constant_columns"] == 7  # product-type and six all-'?' attributes
    horse = load_uci_case("horse_colic", mirror)
    assert horse.info["rows_per_file"] == [300, 68] and not {"c2", "c23"} & set(horse.feature_names)


@pytest.mark.parametrize("name, file, n, d", [("thyroid", "ida_thyroid_xt/thyroid.mat", 215, 5),
                                               ("german", "ida_german_xt/german.mat", 1000, 20)])
def test_mirror_ida(mirror, name, file, n, d):
    ds = load(name, {**mat_entry(f"uci/{file}", x="data", y="target"), "shape": [n, d], "n_classes": 2}, mirror)
    assert ds.info["label_values"] == [-1, 1]


def test_mirror_newsgroups_raw_two_groups(mirror):
    groups = ["alt.atheism", "sci.med"]
    entry = {"files": ["text/20news-bydate/FILES.tsv"], "loader": "newsgroups_raw",  # the registry's file list
             "options": {"groups": groups, "per_class": 20, "text_steps": ["stopwords", "stem"]},
             "n_classes": 2}
    ds = load("ng2", entry, mirror, seed=3)
    assert ds.X.shape[0] == 40 and np.bincount(ds.y).tolist() == [20, 20]
    assert ds.info["available_per_group"] == {"alt.atheism": 799, "sci.med": 990}
    assert all(doc.split("/")[1] == groups[label] for doc, label in zip(ds.info["documents"], ds.y))
    assert ds.feature_names.tolist() == sorted(ds.feature_names.tolist())
    vocab = set(ds.feature_names)
    assert {"believ", "religi", "patient"} <= vocab and not {"the", "and", "believe", "religion"} & vocab
    assert ds.X.sum(axis=0).min() >= 1  # every term occurs
    again = load("ng2", entry, mirror, seed=3)
    assert again.info["documents"] == ds.info["documents"]
    assert load("ng2", entry, mirror, seed=4).info["documents"] != ds.info["documents"]
