"""Lint: ruff on the Python code (config in pyproject.toml, scripts/ruff.toml) and snakefmt on the rules."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, input=stdin, capture_output=True, text=True)


def ruff_on(path, source):
    """ruff's findings for `source` as if it were the project's file `path` (its configuration applies)."""
    return run("ruff", "check", "--no-cache", "--output-format", "concise", "--stdin-filename", path, "-",
               stdin=source)


def test_ruff_finds_nothing():
    proc = run("ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_knows_snakemake_is_injected_into_scripts_only():
    source = 'print(snakemake.input[0])\n'
    assert ruff_on("scripts/example.py", source).returncode == 0
    medium = f'NAME = "{"x" * 100}"\n'  # within the project's line length, not ruff's default 88
    for paper in ("src/ufskit/papers/ils", "tests/papers/toy"):  # a paper folder's scripts/ (its ruff.toml)
        assert ruff_on(f"{paper}/scripts/example.py", source + medium).returncode == 0
        assert ruff_on(f"{paper}/example.py", source).returncode == 1
    elsewhere = ruff_on("src/ufskit/example.py", source)
    assert elsewhere.returncode == 1 and "F821 Undefined name `snakemake`" in elsewhere.stdout
    long_line = f'NAME = "{"x" * 150}"\n'  # E501 allows 150 columns (code is written to 120), in scripts/ too
    assert "E501" in ruff_on("scripts/example.py", long_line).stdout


def test_rules_are_snakefmt_formatted():
    proc = run("snakefmt", "--check", "Snakefile", "workflow/", "src/ufskit/papers/", "tests/papers/")
    assert proc.returncode == 0, (
        "snakefmt would reformat the rules; run `snakefmt Snakefile workflow/ src/ufskit/papers/ tests/papers/`:\n" + proc.stdout + proc.stderr)
