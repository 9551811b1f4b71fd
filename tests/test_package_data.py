"""A paper is its folder, installed too: the wheel ships every file of every paper folder (pyproject.toml's package
data), so a non-editable install runs each paper's rules, scripts, protocols (full, quick, smoke), published
numbers, captions and groups; no cache goes with them."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT
from ufskit import papers

# pip's words when it cannot fetch the build requirements (no network, no index)
OFFLINE = re.compile(r"No matching distribution|Could not find a version|NewConnectionError|Failed to establish|"
                     r"Temporary failure in name resolution|Network is unreachable|ProxyError", re.I)


def folder_files(folder: Path) -> set[str]:
    """Every file of a paper folder, relative to it, caches left out (hidden files and folders, __pycache__)."""
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and not any(part.startswith(".") or part == "__pycache__"
                                       for part in p.relative_to(folder).parts)}


def setuptools_builds_it() -> bool:
    """Whether the installed setuptools meets pyproject.toml's build requirement (then no download is needed)."""
    try:
        import setuptools
    except ImportError:
        return False
    wanted = int(re.search(r'"setuptools>=(\d+)', (ROOT / "pyproject.toml").read_text()).group(1))
    return int(setuptools.__version__.split(".")[0]) >= wanted


def build_wheel(tmp_path: Path) -> Path:
    """The wheel of a copy of the package (pyproject.toml, README.md, src/ with its caches: the build must leave
    them out), built by pip: offline with the installed setuptools when it is recent enough, else in pip's
    isolated build environment (skipped, saying so, when that cannot be downloaded)."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("*.egg-info", "build", "dist"))
    (source / "src/ufskit/papers/ils/scripts/__pycache__").mkdir(exist_ok=True)  # a cache the build must skip
    (source / "src/ufskit/papers/ils/scripts/__pycache__/x.cpython-311.pyc").write_bytes(b"")
    out = tmp_path / "wheel"
    isolation = ["--no-build-isolation"] if setuptools_builds_it() else []
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--quiet", "-w", str(out),
                           *isolation], capture_output=True, text=True, cwd=tmp_path)
    if proc.returncode != 0 and not isolation and OFFLINE.search(proc.stdout + proc.stderr):
        pytest.skip("the installed setuptools is older than pyproject.toml's build requirement and pip cannot "
                    "download a newer one (offline): pip install 'setuptools>=77'")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheels = list(out.glob("ufskit-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_the_wheel_ships_every_file_of_every_paper_folder(tmp_path):
    names = set(zipfile.ZipFile(build_wheel(tmp_path)).namelist())
    assert papers.registry()
    for name, spec in papers.registry().items():
        held = folder_files(spec.home)
        assert {"rules.smk", "protocols/full.yaml", "protocols/quick.yaml", "protocols/smoke.yaml"} <= held, name
        missing = sorted(f for f in held if f"ufskit/papers/{name}/{f}" not in names)
        assert not missing, f"the wheel lacks {name}'s {missing} (pyproject.toml, [tool.setuptools.package-data])"
    shipped = [n for n in names if n.startswith("ufskit/papers/")]
    caches = [n for n in shipped if "__pycache__" in n or n.endswith(".pyc") or "/." in n]
    assert not caches, caches


def test_a_paper_folders_files_leave_out_caches(tmp_path):
    folder = tmp_path / "paper"
    for path in ("rules.smk", "scripts/a.py", "scripts/.ruff_cache/x", "__pycache__/m.pyc", "protocols/quick.yaml"):
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text("")
    assert folder_files(folder) == {"rules.smk", "scripts/a.py", "protocols/quick.yaml"}
