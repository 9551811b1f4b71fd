"""A paper as one unit: its ``PaperSpec`` and the registry the scorecard, captions, report and rules iterate over.

Each paper module (``ufskit.papers.ivfs`` ...) exports one ``SPEC``: the paper's name and title,
the roles its experiments play (config ``role``), its blocks of published numbers with the readers
of its reproduced tables, where its claims are listed, and its report's tables and figures with
their captions. A paper outside the package is one module with a ``SPEC`` named in the config
(``paper_modules``); ``register`` adds it after the built-in ones.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

GENERIC = "generic"  # config `paper` of an experiment that belongs to no paper (its own tables only)
BUILT_IN = ("ivfs", "nrfs", "ils", "kudfs", "benchmark")  # ufskit.papers.<name>, in the scorecard's order
PUBLISHED_HOME = Path("config/published")  # the built-in papers' published numbers and claims list
READER_COLUMNS = ["table", "dataset", "method", "metric", "reproduced", "status"]


@dataclass(frozen=True)
class Published:
    """One block of published numbers: a CSV of the paper's published folder and the paper's table it holds.

    ``columns``: the file's column -> (metric, method); method None = the file's own ``method``
    column, "" = no method (dataset statistics). A file without a ``dataset`` column gives its
    numbers for ``dataset``.
    """

    file: str
    table: str
    columns: Mapping[str, tuple[str, str | None]]
    dataset: str | None = None


@dataclass(frozen=True)
class PaperSpec:
    """Everything the workflow and the report know of one paper, in one place.

    ``roles``: the roles its experiments name (config ``role``), required when not empty.
    ``published``: its blocks of published numbers, in the paper's order. ``readers``: output kind
    of a report folder (``table1`` -> ``results/<report>/table1.csv``) -> function reading that CSV
    into ``READER_COLUMNS``. ``claims``: the file listing its claims (id, paper, element, claim),
    None for a paper that makes none. ``home``: the folder of its published files and claims
    (``PUBLISHED_HOME`` unless given). ``rules``: the Snakemake rules file of a paper of config
    ``paper_modules`` (the built-in papers' rules are included by the Snakefile). Relative ``home``
    and ``rules`` are relative to the workflow's folder. ``tables`` and ``figures``: file under
    ``results/<report>/`` -> its caption in the report (``workflow/report/<caption>.rst``).
    """

    name: str
    title: str
    roles: tuple[str, ...] = ()
    published: tuple[Published, ...] = ()
    readers: Mapping[str, Callable[[pd.DataFrame], pd.DataFrame]] = field(default_factory=dict)
    claims: str | None = None
    home: Path = PUBLISHED_HOME
    rules: Path | None = None
    tables: Mapping[str, str] = field(default_factory=dict)
    figures: Mapping[str, str] = field(default_factory=dict)

    @property
    def scored(self) -> bool:
        """True when the scorecard has rows for it: published numbers or claims."""
        return bool(self.published) or self.claims is not None

    @property
    def captions(self) -> set[str]:
        """The captions of its tables and figures (``paper_report`` refuses any other)."""
        return set(self.tables.values()) | set(self.figures.values())

    def path(self, file: str, workflow: Path) -> Path:
        """A published file or claims list of the paper, under ``home`` (resolved against ``workflow``'s folder)."""
        return Path(workflow) / self.home / file


_REGISTRY: dict[str, PaperSpec] = {}


def registry() -> dict[str, PaperSpec]:
    """Paper name -> spec: the built-in papers (``BUILT_IN``), then those registered, in that order."""
    if not _REGISTRY:
        for name in BUILT_IN:
            _add(_spec_of(f"{__package__}.{name}"))
    return _REGISTRY


def register(module: str) -> PaperSpec:
    """Add the paper of ``module`` (an importable module with a ``SPEC``); registering it again changes nothing."""
    specs = registry()
    spec = _spec_of(module)
    return spec if specs.get(spec.name) is spec else _add(spec)


def register_modules(modules) -> list[PaperSpec]:
    """``register`` each module of config ``paper_modules``."""
    return [register(m) for m in modules or ()]


def _spec_of(module: str) -> PaperSpec:
    spec = getattr(importlib.import_module(module), "SPEC", None)
    if not isinstance(spec, PaperSpec):
        raise ValueError(f"paper module {module!r} must define SPEC, a PaperSpec; got {type(spec).__name__}.")
    return spec


def _add(spec: PaperSpec) -> PaperSpec:
    if spec.name in _REGISTRY:
        raise ValueError(f"paper {spec.name!r} is already registered; paper names must be unique.")
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
                             f"(config paper_modules adds more), got {paper!r}.")
        roles = specs[paper].roles if paper in specs else ()
        if role is not None and role not in roles:
            raise ValueError(f"experiment {name!r}: role must be one of {list(roles)} for paper {paper!r}, "
                             f"got {role!r}.")
        if role is None and roles:
            raise ValueError(f"experiment {name!r}: paper {paper!r} needs a `role`, one of {list(roles)}.")


# ---------------------------------------------------------------- helpers of the papers' readers


def reader_rows(frame: pd.DataFrame, table: str, **fixed) -> pd.DataFrame:
    """A reproduced table in ``READER_COLUMNS``: ``fixed`` columns set, status "ok" where there is a value."""
    out = frame.assign(table=table, **fixed)
    if "status" not in out:
        out["status"] = np.where(out["reproduced"].notna(), "ok", "no value")
    return out[READER_COLUMNS]


def melt_columns(frame: pd.DataFrame, id_var: str, columns: Mapping[str, str], var_name: str) -> pd.DataFrame:
    """A wide table in long form: ``columns`` (CSV column -> value of ``var_name``) become rows of ``reproduced``."""
    long = frame.melt(id_vars=id_var, value_vars=list(columns), var_name=var_name, value_name="reproduced")
    long[var_name] = long[var_name].map(columns)
    return long
