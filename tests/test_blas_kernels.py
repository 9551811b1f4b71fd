"""A run under another BLAS kernel agrees with the default kernel's within the scorecard's tolerances.

Two machines of one kind can run different OpenBLAS kernels (an AVX-512 Intel host, an AVX2 AMD one), which
sum in different orders: numbers agree to round-off, or within a metric's tolerance where a K-means start or a
nearest neighbour flips on a last bit. This runs smoke experiments twice on this machine, the second time with
OPENBLAS_CORETYPE forcing the Sandybridge kernel (AVX, no FMA), and compares them as ``ufskit compare`` does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from test_workflow import snakemake

from conftest import ROOT
from ufskit.compare import compare_runs, report
from ufskit.configio import load_yaml

pytestmark = pytest.mark.workflow

OTHER = "Sandybridge"
# the generic path, IVFS (distances, persistence diagrams, KNN) and kernel UDFS (kernel K-means, chance pools)
EXPERIMENTS = "run=[smoke,smoke_ivfs,smoke_kudfs_udfs,smoke_kudfs_table1]"


def kernel(env: dict) -> str:
    probe = "import json, numpy, threadpoolctl; print(json.dumps(threadpoolctl.threadpool_info()))"
    out = subprocess.run([sys.executable, "-c", probe], env={**os.environ, **env}, capture_output=True, text=True,
                         check=True).stdout
    return next(i["architecture"] for i in json.loads(out) if i["internal_api"] == "openblas")


def test_another_blas_kernel_gives_numbers_within_tolerance(tmp_path, mirror):
    default, other = kernel({}), kernel({"OPENBLAS_CORETYPE": OTHER})
    if default == other:
        pytest.skip(f"this machine's default OpenBLAS kernel is already {OTHER}")
    runs = {}
    for name, env in (("default", {}), ("other", {"OPENBLAS_CORETYPE": OTHER})):
        (tmp_path / name).mkdir()
        snakemake("--cores", "2", "--configfile", str(ROOT / "config/smoke.yaml"), "--config", EXPERIMENTS,
                  cwd=tmp_path / name, env={"UFS_DATA_MIRROR": str(mirror), **env})
        runs[name] = tmp_path / name / "results"
    tolerances = load_yaml(ROOT / "config/config.yaml")["scorecard"]["tolerances"]
    result = compare_runs(runs["other"], runs["default"], tolerances)
    assert result.agrees, f"{OTHER} vs {default}:\n{report(result)}"
    assert not result.files_only_mine and not result.files_only_reference
