"""A paper as one unit: one folder, its ``PaperSpec``, and the registry the scorecard, captions, report and rules
iterate over.

A paper is a folder named as the paper and importable as a package (``ufskit/papers/ivfs/`` ...):

    __init__.py     PAPER, a PaperSpec: name and title, the roles its experiments play (config ``role``),
                    its blocks of published numbers with the readers of its reproduced tables, its claims
                    list, its report's tables and figures with their captions (+ the paper's own code)
    rules.smk       its Snakemake rules (included by the Snakefile), beside any file it includes
    scripts/        the ``script:`` files of those rules
    published/      its published numbers (one CSV per block) and its claims list
    captions/       the report captions of its tables and figures (``<caption>.rst``)
    protocols/      its experiments of each protocol (``full.yaml``, ``quick.yaml``, ``smoke.yaml``: ``run`` and
                    ``experiments``), merged into the run's config by ``ufskit.protocols``
    groups.csv      the groups of its published numbers outside tolerance, each with its measured reason
                    (optional; read by the scorecard)

The built-in papers are the folders of this package, found by scanning it (``PAPERS_HOME``); a paper
outside the package is a folder under one of the config's ``paper_folders``, registered after them by
``register_folders``. Nothing else names a paper: adding one is adding its folder.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

GENERIC = "generic"  # config `paper` of an experiment that belongs to no paper (its own tables only)
PAPERS_HOME = Path(__file__).resolve().parent  # the built-in papers: one sub-folder (sub-package) each
RULES, SCRIPTS, PUBLISHED, CAPTIONS = "rules.smk", "scripts", "published", "captions"  # the parts of a paper's folder
GROUPS = "groups.csv"  # its explained deviations: published-number patterns -> group, reason, doc (optional)
READER_COLUMNS = ["table", "dataset", "method", "metric", "reproduced", "status"]


@dataclass(frozen=True)
class Published:
    """One block of published numbers: a CSV of the paper's published folder and the paper's table it holds.

    ``columns``: the file's column -> (metric, method); method None = the file's own ``method``
    column, "" = no method (dataset statistics). A file without a ``dataset`` column gives its
    numbers for ``dataset``. ``keys``: more columns of the file that tell its numbers apart (a
    feature count, a setting ...); the scorecard joins on them too, so the reader of the block's
    output returns them beside ``READER_COLUMNS``.
    """

    file: str
    table: str
    columns: Mapping[str, tuple[str, str | None]]
    dataset: str | None = None
    keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class PaperSpec:
    """Everything the workflow and the report know of one paper, in one place.

    ``roles``: the roles its experiments name (config ``role``), required when not empty.
    ``published``: its blocks of published numbers, in the paper's order. ``readers``: output kind
    of a report folder (``table1`` -> ``results/<report>/table1.csv``) -> function reading that CSV
    into ``READER_COLUMNS``. ``claims``: the file of ``published/`` listing its claims (id, paper,
    element, claim), None for a paper that makes none. ``tables`` and ``figures``: file under
    ``results/<report>/`` -> its caption in the report (``captions/<caption>.rst``). ``home``: the
    paper's folder, set by the registry from where its module lies.
    """

    name: str
    title: str
    roles: tuple[str, ...] = ()
    published: tuple[Published, ...] = ()
    readers: Mapping[str, Callable[[pd.DataFrame], pd.DataFrame]] = field(default_factory=dict)
    claims: str | None = None
    tables: Mapping[str, str] = field(default_factory=dict)
    figures: Mapping[str, str] = field(default_factory=dict)
    home: Path | None = None

    @property
    def scored(self) -> bool:
        """True when the scorecard has rows for it: published numbers or claims."""
        return bool(self.published) or self.claims is not None

    @property
    def captions(self) -> set[str]:
        """The captions of its tables and figures (``paper_report`` refuses any other)."""
        return set(self.tables.values()) | set(self.figures.values())

    def path(self, file: str) -> Path:
        """A published file or the claims list of the paper: ``published/<file>`` of its folder."""
        return self._part(PUBLISHED) / file

    def caption(self, caption: str) -> Path:
        """The report caption ``caption`` of one of its tables and figures: ``captions/<caption>.rst``."""
        return self._part(CAPTIONS) / f"{caption}.rst"

    @property
    def rules(self) -> Path:
        """Its Snakemake rules file, ``rules.smk`` of its folder (the Snakefile includes it)."""
        return self._part(RULES)

    @property
    def groups(self) -> Path:
        """Its groups of published numbers outside tolerance, ``groups.csv`` of its folder (may not exist): the
        scorecard's ``read_groups`` columns, each row of this paper."""
        return self._part(GROUPS)

    def _part(self, name: str) -> Path:
        if self.home is None:
            raise ValueError(f"paper {self.name!r} has no folder: register it (ufskit.papers.spec.registry).")
        return self.home / name


_REGISTRY: dict[str, PaperSpec] = {}


def paper_folders(root) -> list[Path]:
    """The paper folders of ``root``, by name: its sub-folders that are Python packages (an ``__init__.py``)."""
    return sorted(d for d in Path(root).iterdir() if (d / "__init__.py").is_file() and d.name.isidentifier())


def registry() -> dict[str, PaperSpec]:
    """Paper name -> spec: the built-in papers (the folders of ``PAPERS_HOME``), then those registered, in order."""
    if not _REGISTRY:
        for folder in paper_folders(PAPERS_HOME):
            _add(_spec_of(f"{__package__}.{folder.name}", folder))
    return _REGISTRY


def register(folder) -> PaperSpec:
    """Add the paper of ``folder`` (outside the package), imported as the package of its name from its parent.

    The parent must be on the import path (the workflow puts config ``paper_folders`` there, for its jobs too).
    Registering the same folder again changes nothing.
    """
    folder = Path(folder).resolve()
    known = registry().get(folder.name)
    if known is not None and known.home == folder:
        return known
    if str(folder.parent) not in sys.path:
        raise ValueError(f"paper folder {folder}: its parent folder must be on the import path (config paper_folders).")
    return _add(_spec_of(folder.name, folder))


def register_folders(roots: Iterable) -> list[PaperSpec]:
    """``register`` every paper folder of each folder of ``roots`` (config ``paper_folders``), after the built-in ones."""
    return [register(folder) for root in roots or () for folder in paper_folders(root)]


def paper_package(file):
    """The package of the paper folder holding ``file`` (any file of the folder, or of its ``scripts/``): imported as
    ``ufskit.papers.<name>`` for a built-in paper (a folder of ``PAPERS_HOME``), as ``<name>`` for one of a
    config ``paper_folders`` folder (whose parent the workflow puts on the import path, for its jobs too).

    A paper's scripts call it with their ``__file__`` (Snakemake sets it to the script's own path), so the same
    script runs on both routes: ``paper = paper_package(__file__)``.
    """
    path = Path(file).resolve()
    folder = next((d for d in path.parents if (d / "__init__.py").is_file()), None)
    if folder is None:
        raise ValueError(f"{file}: in no paper folder (a folder with an __init__.py).")
    name = f"{__package__}.{folder.name}" if folder.parent == PAPERS_HOME else folder.name
    module = importlib.import_module(name)
    if Path(module.__file__).resolve().parent != folder:
        raise ValueError(f"{file}: `import {name}` finds {Path(module.__file__).parent}, not its paper folder {folder}.")
    return module


def _spec_of(module: str, folder: Path) -> PaperSpec:
    """The ``PAPER`` of the paper's package ``module``, with ``home`` its folder; it must be ``folder`` and named as it."""
    imported = importlib.import_module(module)
    home = Path(imported.__file__).resolve().parent
    if home != Path(folder).resolve():
        raise ValueError(f"paper folder {folder}: `import {module}` finds {home} first; rename the folder.")
    spec = getattr(imported, "PAPER", None)
    if not isinstance(spec, PaperSpec):
        raise ValueError(f"paper module {module!r} must define PAPER, a PaperSpec; got {type(spec).__name__}.")
    if spec.name != home.name:
        raise ValueError(f"paper folder {home}: its PAPER.name must be its folder's name {home.name!r}, got {spec.name!r}.")
    return replace(spec, home=home)


def _add(spec: PaperSpec) -> PaperSpec:
    if spec.name in _REGISTRY:
        raise ValueError(f"paper {spec.name!r} is already registered from {_REGISTRY[spec.name].home}; "
                         "paper names must be unique.")
    files = {p.file for s in _REGISTRY.values() for p in s.published}
    clash = sorted(files & {p.file for p in spec.published})
    if clash:
        raise ValueError(f"paper {spec.name!r}: published file name(s) {clash} already used by another paper.")
    _REGISTRY[spec.name] = spec
    return spec


def scored() -> dict[str, PaperSpec]:
    """The papers with rows in the scorecard (``PaperSpec.scored``), in the registry's order."""
    return {name: spec for name, spec in registry().items() if spec.scored}


def titles() -> dict[str, str]:
    """Paper name -> title, of every registered paper (the report's categories)."""
    return {name: spec.title for name, spec in registry().items()}


def check_experiments(experiments: Mapping[str, Mapping]) -> None:
    """Each experiment's paper is ``GENERIC`` or registered, and its ``role`` one of that paper's roles.

    A paper with roles needs one on each of its experiments (its rules find them by it); one without refuses it.
    """
    specs = registry()
    for name, exp in experiments.items():
        paper, role = exp.get("paper", GENERIC), exp.get("role")
        if paper != GENERIC and paper not in specs:
            raise ValueError(f"experiment {name!r}: paper must be {GENERIC!r} or a registered paper {list(specs)} "
                             f"(config paper_folders adds more), got {paper!r}.")
        roles = specs[paper].roles if paper in specs else ()
        if role is not None and role not in roles:
            raise ValueError(f"experiment {name!r}: role must be one of {list(roles)} for paper {paper!r}, "
                             f"got {role!r}.")
        if role is None and roles:
            raise ValueError(f"experiment {name!r}: paper {paper!r} needs a `role`, one of {list(roles)}.")


# ---------------------------------------------------------------- helpers of the papers' readers


def reader_rows(frame: pd.DataFrame, table: str, keys: tuple[str, ...] = (), **fixed) -> pd.DataFrame:
    """A reproduced table in ``READER_COLUMNS`` and the block's extra ``keys`` (``Published.keys``): ``fixed``
    columns set, status "ok" where there is a value."""
    out = frame.assign(table=table, **fixed)
    if "status" not in out:
        out["status"] = np.where(out["reproduced"].notna(), "ok", "no value")
    return out[[*READER_COLUMNS, *keys]]


def melt_columns(frame: pd.DataFrame, id_var: str, columns: Mapping[str, str], var_name: str) -> pd.DataFrame:
    """A wide table in long form: ``columns`` (CSV column -> value of ``var_name``) become rows of ``reproduced``."""
    long = frame.melt(id_vars=id_var, value_vars=list(columns), var_name=var_name, value_name="reproduced")
    long[var_name] = long[var_name].map(columns)
    return long
