"""Packaging: the base install is the library alone, and the conda environment agrees with pyproject.toml."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import tomllib

import yaml

from conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# The workflow stack: none of it may be imported by `import ufskit.selectors`.
WORKFLOW_ONLY = ["snakemake", "gudhi", "nltk", "rdata", "statsmodels", "scikit_posthocs", "pygments", "yaml",
                 "tabulate"]
# conda-forge names that differ from the PyPI ones
CONDA_NAMES = {"matplotlib": "matplotlib-base"}


def split_requirement(text: str) -> tuple[str, str]:
    """(lower-case name, version specifier without spaces) of a requirement such as ``numpy >=1.26,<3``."""
    name, spec = re.match(r"\s*([A-Za-z0-9_.-]+)\s*(.*)", text).groups()
    return name.lower(), spec.replace(" ", "")


def test_selectors_import_and_fit_with_the_workflow_stack_blocked():
    code = textwrap.dedent(f"""
        import sys
        BLOCKED = {WORKFLOW_ONLY!r}

        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in BLOCKED:
                    raise ModuleNotFoundError(f"blocked: {{name}}")

        sys.meta_path.insert(0, Block())
        from sklearn.datasets import load_iris
        import ufskit.selectors
        X, _ = load_iris(return_X_y=True)
        sel = ufskit.selectors.LaplacianScore(n_features_to_select=2).fit(X)
        assert sorted(sel.ranking_) == [1, 2, 3, 4], sel.ranking_
        assert sel.transform(X).shape == (150, 2)
        print(sorted({{m.split(".")[0] for m in sys.modules}} & set(BLOCKED)))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "[]"


def test_the_base_install_leaves_the_workflow_stack_to_the_extra():
    base = {split_requirement(r)[0] for r in PYPROJECT["project"]["dependencies"]}
    workflow = {split_requirement(r)[0] for r in PYPROJECT["project"]["optional-dependencies"]["workflow"]}
    assert base == {"numpy", "scipy", "scikit-learn", "pandas", "matplotlib", "threadpoolctl"}
    assert {"snakemake", "gudhi", "nltk", "rdata", "statsmodels", "scikit-posthocs", "tabulate"} <= workflow


def test_conda_environment_matches_pyproject():
    env = yaml.safe_load((ROOT / "envs/ufskit.yaml").read_text())["dependencies"]
    pip = next(d["pip"] for d in env if isinstance(d, dict))
    listed = [d for d in env if isinstance(d, str)] + [p for p in pip if not p.startswith("-e")]
    conda = dict(split_requirement(d) for d in listed)
    project = PYPROJECT["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["workflow"]
    for name, spec in map(split_requirement, wanted):
        conda_name = CONDA_NAMES.get(name, name)
        assert conda.pop(conda_name, None) == spec, f"envs/ufskit.yaml: {conda_name} should be pinned {spec}"
    python = project["requires-python"]
    assert conda.pop("python").startswith(python), f"envs/ufskit.yaml: python should start with {python}"
    assert conda == {"pip": ""}, f"envs/ufskit.yaml lists packages pyproject.toml does not: {sorted(conda)}"
