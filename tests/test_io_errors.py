"""Corrupt or misplaced intermediates and unusable data files through Snakemake: each run stops with an
error naming the file and the problem (a job's error is in its log)."""

from __future__ import annotations

import shutil

import pytest
from test_workflow import snakemake

from conftest import ROOT

pytestmark = pytest.mark.workflow

CONFIG = """
run: [io]
datasets:
  blobs: {path: blobs.csv, loader: table, options: {label: class}, description: the worked example's CSV.}
  one_row: {path: one_row.csv, loader: table, options: {label: class}, description: one sample only.}
  header_only: {path: header_only.csv, loader: table, options: {label: class}, description: no sample.}
experiments:
  io:
    description: Two cheap selectors on a small CSV.
    paper: generic
    preprocess: zscore
    datasets: [blobs]
    reps: 1
    n_features: [2, 5]
    methods:
      LS: {selector: LaplacianScore}
      SPEC: {selector: SPEC, params: {style: 2}}
    metrics:
      distance_norms: {}
"""
TARGETS = ("results/io/summary.md", "results/io/datasets.md")


def run(tmp_path, *targets, check=False):
    """Snakemake on ``targets``; the return code and everything it and the jobs' logs said."""
    proc = snakemake(*(targets or TARGETS), "--cores", "1", "--configfile", str(tmp_path / "io.yaml"), cwd=tmp_path,
                     check=check)
    logs = "".join(p.read_text() for p in sorted((tmp_path / "logs").rglob("*.log")))
    return proc.returncode, proc.stdout + proc.stderr + logs


def test_corrupt_and_misplaced_intermediates_and_unusable_csv_files_are_named(tmp_path):
    example = (ROOT / "config/examples/own_data.csv").read_text()
    (tmp_path / "blobs.csv").write_text(example)
    (tmp_path / "one_row.csv").write_text("".join(example.splitlines(keepends=True)[:2]))
    (tmp_path / "header_only.csv").write_text(example.splitlines(keepends=True)[0])
    (tmp_path / "io.yaml").write_text(CONFIG)
    run(tmp_path, check=True)
    results = tmp_path / "results/io"

    # garbage in a per-run metrics table: the aggregation names it
    table = next((results / "metrics/blobs/LS").rglob("rep0.parquet"))
    table.write_bytes(b"garbage, not parquet")
    code, out = run(tmp_path)
    rel = table.relative_to(tmp_path)
    assert code != 0 and f"corrupt file {rel}: unreadable as a metrics table (ArrowInvalid" in out, out[-3000:]
    table.unlink()
    run(tmp_path, check=True)  # the advice works: deleted and rebuilt

    # LS's selection copied onto SPEC's path: evaluating it as SPEC is refused, naming both identities
    ls, spec = (next((results / "selections/blobs" / m).rglob("rep0.npz")) for m in ("LS", "SPEC"))
    shutil.copy(ls, spec)
    code, out = run(tmp_path)
    assert code != 0 and f"corrupt file {spec.relative_to(tmp_path)}: it records experiment=io, dataset=blobs, " \
                         "method=LS" in out and "but its path is that of experiment=io, dataset=blobs, method=SPEC" \
                         in out, out[-3000:]
    spec.unlink()
    run(tmp_path, check=True)

    # a truncated prepared summary: the dataset table names it
    summary = tmp_path / "resources/prepared/zscore/blobs.json"
    summary.write_text(summary.read_text()[:40])
    code, out = run(tmp_path)
    assert code != 0 and ("corrupt file resources/prepared/zscore/blobs.json: unreadable as a JSON file "
                          "(JSONDecodeError") in out, out[-3000:]

    # data files without two samples: stopped when prepared, naming the file
    for name, message in (("one_row", "one_row.csv has only 1 data row; it must hold at least 2 samples"),
                          ("header_only", "header_only.csv has a header but no data rows")):
        code, out = run(tmp_path, f"resources/prepared/zscore/{name}.npz")
        assert code != 0 and f"dataset '{name}': {message}" in out, out[-3000:]
