"""The package's import graph: every module imports on its own, and no chain of imports comes back to its start.

A cycle works only while every module of it happens to be imported in a lucky order (or through an import
hidden inside a function); it also ties parts together that should not know each other (a selector and the
table of all selectors). The graph is read from the source's import statements, functions included.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

from conftest import ROOT

SRC = ROOT / "src"
PACKAGE = "ufskit"


def modules() -> dict[str, tuple]:
    """Dotted module name -> (path, is a package) for every module of the package (a paper's scripts/ holds none:
    Snakemake's `script:` files, run by its rules)."""
    found = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if "scripts" in parts[:-1]:
            continue
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


def imported(name: str, path, package: bool, known) -> set[str]:
    """The package's modules that module ``name`` imports anywhere in its source (``from . import x`` names x)."""
    here = name.split(".") if package else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(here[: len(here) - node.level + 1] + [node.module or ""]).strip(".") if node.level \
                else node.module
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        out.update(t for t in targets if t in known and t != name)
    return out


def import_graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imported(name, path, package, known) for name, (path, package) in known.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as [a, b, ..., a], or None (depth-first search, white/grey/black)."""
    state, stack = {}, []

    def visit(node):
        state[node] = "grey"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "grey":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = "black"
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_cycle_finder_finds_a_cycle_and_only_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_relative_imports_resolve_to_the_package_modules(tmp_path):
    known = {"p": 0, "p.sub": 0, "p.sub.a": 0, "p.sub.b": 0, "p.c": 0}
    source = tmp_path / "a.py"
    source.write_text("from . import b\nfrom .. import c\nfrom ..sub.b import thing\nimport os\n"
                      "def f():\n    from p.c import g\n")
    assert imported("p.sub.a", source, False, known) == {"p.sub.b", "p.c"}


def test_the_package_has_no_import_cycle():
    graph = import_graph()
    assert "ufskit.selectors.base" in graph and graph["ufskit.evaluation"], "the import graph was not read"
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


# Imports every module named on the command line, each in a child forked from a process that holds the
# third-party libraries but no module of the package: each child starts the package afresh, and the seconds
# of importing numpy, scipy, scikit-learn and pandas are paid once.
ONE_BY_ONE = """
import importlib, os, sys
for lib in sys.argv[1].split(","):
    try:
        importlib.import_module(lib)
    except ImportError:
        pass  # an optional dependency: the module needing it at import time fails below, as it would alone
assert not [m for m in sys.modules if m.split(".")[0] == "ufskit"]
for name in sys.argv[2:]:
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(name)
        except BaseException as e:
            print(f"{name}: {type(e).__name__}: {e}", flush=True)
            os._exit(1)
        os._exit(0)
    status = os.waitpid(pid, 0)[1]
    if status not in (0, 256):  # 256: exit(1) after printing the error; anything else is a crash
        print(f"{name}: died (wait status {status})", flush=True)
"""


def third_party() -> set[str]:
    """Top-level names of the libraries the package imports (anywhere in its source)."""
    roots = set()
    for path, _ in modules().values():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                roots.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level:
                roots.add(node.module.split(".")[0])
    return {r for r in roots if r != PACKAGE and r not in sys.stdlib_module_names}


def test_every_module_imports_on_its_own():
    """Each module with a fresh package (in one interpreter, a module that works only after another would pass)."""
    env = {**os.environ, "PYTHONPATH": str(SRC), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    names = sorted(modules())
    proc = subprocess.run([sys.executable, "-c", ONE_BY_ONE, ",".join(sorted(third_party())), *names],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "", "modules that fail to import on their own:\n" + proc.stdout


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_the_library_parts_know_no_paper_and_no_report():
    """Selectors and metrics stand alone: no selector or metric module reaches a paper, the report or the run path."""
    graph = import_graph()
    papers = {m for m in graph if m.startswith("ufskit.papers")} | {"ufskit.scorecard", "ufskit.captions"}
    runs = {"ufskit.runs", "ufskit.experiments", "ufskit.startup", "ufskit.readings", "ufskit.configio",
            "ufskit.results"}
    library = [m for m in graph if m.startswith(("ufskit.selectors", "ufskit.metrics"))]
    assert len(library) > 15
    for module in library + ["ufskit.evaluation", "ufskit.cluster"]:
        assert not _reach(graph, module) & papers, module
    for module in library:
        assert not _reach(graph, module) & runs, module


# Of the heavy libraries: those a library user may not need (`import <module>`), and those the workflow's start-up
# (`snakemake -n`: the Snakefile's parse and the DAG) must not pay for, seconds of CPU before the first job.
HEAVY = ("pandas", "sklearn", "scipy", "matplotlib", "gudhi", "snakemake")
START_UP_HEAVY = ("sklearn", "matplotlib", "scipy", "statsmodels", "scikit_posthocs", "gudhi")


def modules_loaded(code: str) -> set[str]:
    """Every module in ``sys.modules`` after running ``code`` in a fresh interpreter (the package from SRC)."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    code += "\nimport sys; print(' '.join(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


def loaded_by(module: str) -> set[str]:
    """The top-level packages that ``import module`` loads."""
    return {name.split(".")[0] for name in modules_loaded(f"import {module}")}


def heavy_in(loaded: set[str], heavy=START_UP_HEAVY) -> set[str]:
    """The libraries of ``heavy`` of which ``loaded`` holds the module or a submodule."""
    return {h for h in heavy if any(m == h or m.startswith(h + ".") for m in loaded)}


def workflow_imports() -> list[str]:
    """The package's import statements in the Snakefile and the rules files (input functions' too: they run while
    the DAG is built), one line each."""
    files = [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk")),
             *sorted((ROOT / "src" / PACKAGE / "papers").glob("*/*.smk"))]  # the papers' rules, in their folders
    return [line.strip() for f in files for line in f.read_text().splitlines()
            if re.match(rf"\s*(from|import) {PACKAGE}\b", line)]


def test_the_package_and_its_selectors_import_no_heavy_library():
    """``import ufskit.selectors`` loads no selector: a job or a user pays scikit-learn only for the one it uses."""
    for module in ("ufskit", "ufskit.selectors", "ufskit.metrics"):
        assert not loaded_by(module) & set(HEAVY), module
    assert {"sklearn", "scipy"} <= loaded_by("ufskit.selectors.laplacian")  # the check sees what a selector needs


def test_the_workflow_start_up_imports_no_heavy_library():
    """What the Snakefile and rules import, and the paper specs common.smk reads, load none of ``START_UP_HEAVY``:
    a paper module imports its figures' and statistics' libraries in the functions using them."""
    statements = workflow_imports()
    assert "from ufskit import protocols as PROTOCOLS" in statements, "the rules' imports were not read"
    code = "\n".join([*statements, "from ufskit.papers import registry, scored", "assert len(registry()) >= 5",
                      "scored()"])
    loaded = modules_loaded(code)
    assert {"ufskit.papers.kudfs", "ufskit.papers.benchmark_stats", "ufskit.scorecard"} <= loaded
    assert not heavy_in(loaded), sorted(heavy_in(loaded))
    # the check sees a library imported inside a function, once that function runs
    used = modules_loaded("from ufskit.papers.benchmark_stats import critical_difference\ncritical_difference(3, 5)")
    assert heavy_in(used) == {"scipy"}
