"""The dataset registry: the real config/datasets.yaml against the data mirror, and malformed registries."""

from __future__ import annotations

import copy
import csv
from pathlib import Path, PurePosixPath

import pytest
import yaml

from ufskit.download import fetch_source, read_file_list, sha256_of
from ufskit.loaders import load
from ufskit.registry import (
    RegistryError,
    dataset_entry,
    load_registry,
    source_files,
    validate_registry,
)

REGISTRY_PATH = Path(__file__).resolve().parents[1] / "config" / "datasets.yaml"
REGISTRY = load_registry(REGISTRY_PATH)
NOT_MIRRORED = {"CLL-SUB-111", "SMK-CAN-187", "Lung_Cancer", "RCV1-4Class"}
MIRRORED_SOURCES = sorted(n for n, s in REGISTRY["sources"].items() if s["mirrored"])


def manifest_rows(mirror: Path):
    """(path relative to the mirror root, sha256) of every MANIFEST row that names a file."""
    for manifest in sorted(mirror.glob("*/MANIFEST.tsv")):
        with open(manifest, newline="") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                if row["sha256"]:
                    name = "20news-bydate/FILES.tsv" if row["file"].startswith("20news-bydate/") else row["file"]
                    yield f"{manifest.parent.name}/{name}", row["sha256"]


def test_real_registry_loads_with_every_paper_dataset():
    by_paper = {}
    for name, entry in REGISTRY["datasets"].items():
        for paper in entry["papers"]:
            by_paper.setdefault(paper, set()).add(name)
    assert set(by_paper) == {"ivfs", "nrfs", "ils", "kudfs"}
    assert len(by_paper["ivfs"]) == 10  # IVFS Table 1
    assert by_paper["nrfs"] == {
        "11_Tumors",
        "Leukemia2",
        "Brain_Tumor2",
        "lung",
        "RCV1-4Class",
        "Reuters21578A",
        "20NewsgroupA",
        "20NewsgroupB",
        "nrfs_synthetic",
    }  # Table II + Fig. 1
    assert len(by_paper["ils"]) == 9  # Table 1 (8 UCI) + ORL
    assert by_paper["kudfs"] == {"thyroid", "german", "diabetis", "wdbc", "ionosphere", "spect"}


def test_every_source_is_used_by_a_dataset():
    used = {e["source"] for e in REGISTRY["datasets"].values()}
    assert set(REGISTRY["sources"]) <= used


def test_not_mirrored_datasets_are_marked(mirror):
    for name, entry in REGISTRY["datasets"].items():
        source = REGISTRY["sources"].get(entry["source"])
        if source is None:
            continue
        assert source["mirrored"] == (name not in NOT_MIRRORED), name
        if name in NOT_MIRRORED:
            (f,) = source_files(REGISTRY, entry["source"])
            assert "git_blob" in f and f["url"] and not (mirror / f["path"]).exists()


@pytest.mark.parametrize("source_name", MIRRORED_SOURCES)
def test_mirrored_files_exist_with_their_sha256(mirror, source_name):
    for f in source_files(REGISTRY, source_name):
        assert "sha256" in f, f["path"]
        assert sha256_of(mirror / f["path"]) == f["sha256"], f["path"]
    listing = REGISTRY["sources"][source_name].get("file_list")
    if listing:
        folder = PurePosixPath(listing["path"]).parent
        rows = read_file_list(mirror / listing["path"])
        assert rows
        for row in rows:
            assert sha256_of(mirror / folder / row["path"]) == row["sha256"], row["path"]


def test_every_manifest_file_is_in_a_source_with_its_checksum(mirror):
    registered = {f["path"]: f.get("sha256") for s in REGISTRY["sources"] for f in source_files(REGISTRY, s)}
    rows = dict(manifest_rows(mirror))
    assert rows and rows.items() <= registered.items()


def test_a_registry_source_downloads_from_the_mirror(mirror, tmp_path):
    paths = fetch_source(REGISTRY["sources"]["horse_colic_uci"], tmp_path, mirror=str(mirror), log=lambda _: None)
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == [
        f["path"] for f in source_files(REGISTRY, "horse_colic_uci")
    ]
    assert all(p.read_bytes() == (mirror / p.relative_to(tmp_path)).read_bytes() for p in paths)


@pytest.mark.parametrize("name", sorted(n for n in REGISTRY["datasets"] if n not in NOT_MIRRORED))
def test_every_mirrored_dataset_loads_with_its_registered_shape(mirror, name):
    """The contract with the loaders: the mirror has the raw-root layout, so each dataset loads from it."""
    entry = dataset_entry(REGISTRY, name)
    ds = load(name, entry, mirror, seed=0, sources=REGISTRY["sources"])
    n, d = entry["shape"]
    assert ds.X.shape[0] == n and (d is None or ds.X.shape[1] == d)
    assert ds.n_classes == entry["n_classes"]


def test_unknown_dataset_suggests_close_names():
    with pytest.raises(ValueError, match=r"unknown dataset 'lymphona'; did you mean 'lymphoma'\? known: .*COIL20"):
        dataset_entry(REGISTRY, "lymphona")
    with pytest.raises(ValueError, match="did you mean 'COIL20'"):
        dataset_entry(REGISTRY, "coil20")
    with pytest.raises(ValueError, match=r"unknown source 'wine'; did you mean 'wine_uci'"):
        source_files(REGISTRY, "wine")


def test_source_files_include_the_file_list_last():
    files = source_files(REGISTRY, "20news_bydate_raw")
    assert [f["path"] for f in files] == ["text/20news-bydate/FILES.tsv"]
    assert source_files(REGISTRY, "anneal_uci")[0]["path"] == "uci/anneal/anneal.data"


def broken(edit):
    """A copy of the real registry with ``edit`` applied, validated."""
    reg = copy.deepcopy(REGISTRY)
    edit(reg)
    return validate_registry(reg, origin="test.yaml")


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda r: r["datasets"]["wine"].pop("loader"), r"test.yaml: datasets.wine: missing key\(s\) 'loader'"),
        (lambda r: r["datasets"]["wine"].update(colour="red"), r"datasets.wine: unknown key\(s\) 'colour'"),
        (
            lambda r: r["datasets"]["zoo"].update(source="zoo_csv"),
            r"datasets.zoo.source: unknown source 'zoo_csv'; did you mean 'zoo_uci'",
        ),
        (lambda r: r["datasets"]["zoo"].update(shape=[101]), r"datasets.zoo.shape: must be \[n, d\]"),
        (lambda r: r["datasets"]["zoo"].update(shape=[101, 16.0]), r"datasets.zoo.shape"),
        (lambda r: r["datasets"]["zoo"].update(n_classes=True), r"datasets.zoo.n_classes"),
        (lambda r: r["datasets"]["zoo"].update(loader=3), r"datasets.zoo.loader"),
        (lambda r: r["datasets"]["zoo"].update(preprocess="zscore"), r"datasets.zoo.preprocess"),
        (lambda r: r["datasets"]["zoo"]["options"].update(files=["uci/wine/wine.data"]), r"datasets.zoo.options.files"),
        (
            lambda r: r["sources"]["zoo_uci"]["files"][0].update(git_blob="0" * 40),
            r"sources.zoo_uci.files\[0\]: needs exactly one of",
        ),
        (lambda r: r["sources"]["zoo_uci"]["files"][0].pop("sha256"),
         r"sources.zoo_uci.files\[0\]: needs exactly one of"),
        (lambda r: r["sources"]["zoo_uci"]["files"][0].update(sha256="XYZ"), r"sources.zoo_uci.files\[0\].sha256"),
        (lambda r: r["sources"]["zoo_uci"]["files"][0].update(path="../zoo.data"), r"sources.zoo_uci.files\[0\].path"),
        (lambda r: r["sources"]["zoo_uci"]["files"][0].update(url="ftp://x"), r"sources.zoo_uci.files\[0\].url"),
        (lambda r: r["sources"]["zoo_uci"].pop("mirrored"), r"sources.zoo_uci: missing key\(s\) 'mirrored'"),
        (lambda r: r["sources"]["rcv1_4class_mat"]["files"][0].update(url=None), r"needs an upstream URL"),
        (lambda r: r["sources"]["wine_uci"]["files"].append(r["sources"]["zoo_uci"]["files"][0]), r"already in source"),
        (lambda r: r.pop("sources"), r"top level: missing key\(s\) 'sources'"),
    ],
)
def test_malformed_registry_names_entry_and_key(edit, message):
    with pytest.raises(RegistryError, match=message):
        broken(edit)


def test_load_registry_reports_the_file(tmp_path):
    path = tmp_path / "datasets.yaml"
    reg = copy.deepcopy(REGISTRY)
    del reg["datasets"]["lymphoma"]["shape"]
    path.write_text(yaml.safe_dump(reg))
    with pytest.raises(RegistryError, match=rf"{path}: datasets.lymphoma: missing key\(s\) 'shape'"):
        load_registry(path)
    path.write_text("sources: [unclosed\n")
    with pytest.raises(RegistryError, match="not valid YAML"):
        load_registry(path)
