"""A paper's experiments of each protocol (full, quick, smoke), in its own folder, merged into the run's config.

Each paper folder may hold ``protocols/<protocol>.yaml``: its experiments for that protocol and their names in
``run`` (nothing else). ``protocols/full.yaml`` holds its experiments of the full protocol (the papers' own
settings): it is merged whatever the run's protocol, as if it were part of ``config/config.yaml`` (the first
config file), so every overlay and the reduced protocols build on it; its ``run`` entries follow that file's own
``run``. When the config's ``protocol`` is a reduced one (quick, smoke), the workflow also merges the papers'
files of that protocol as if they were loaded just after the config file setting ``protocol``
(``config/quick.yaml``, ``config/smoke.yaml``): their experiments are added, under any later overlay's changes to
them, and their ``run`` entries follow that file's own ``run``. A later overlay (or ``--config``) that sets
``run`` replaces the list as usual. So adding a paper brings its experiments of every protocol with its folder,
and ``config/config.yaml``, ``config/quick.yaml`` and ``config/smoke.yaml`` hold only what belongs to no paper.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from .configio import ConfigError, load_yaml
from .papers import registry

FOLDER = "protocols"  # the folder of a paper's protocol settings
KEYS = ("run", "experiments")  # all a paper's protocol file may set
FULL = "full"  # the protocol whose files are merged under every run (the papers' own settings)


def deep_update(config: dict, overlay: Mapping) -> dict:
    """Merge ``overlay`` into ``config`` as Snakemake merges config files: mappings key by key, other values
    replaced; mappings are copied, so YAML aliases of one file never share a block afterwards."""
    for key, value in overlay.items():
        if isinstance(value, Mapping):
            below = config.get(key)
            value = deep_update(dict(below) if isinstance(below, Mapping) else {}, value)
        config[key] = value
    return config


def protocol_files(papers: Mapping, protocol: str) -> list[Path]:
    """The ``protocols/<protocol>.yaml`` of each paper of ``papers`` (name -> spec with ``home``) that has one,
    in the registry's order."""
    files = (Path(spec.home) / FOLDER / f"{protocol}.yaml" for spec in papers.values() if spec.home is not None)
    return [f for f in files if f.is_file()]


def read_protocol_file(path: Path, paper: str) -> dict:
    """A paper's protocol file, checked: only ``run`` and ``experiments``, every experiment of paper ``paper``,
    every ``run`` entry one of them."""
    block = load_yaml(path) or {}
    unknown = sorted(set(block) - set(KEYS))
    if unknown:
        raise ConfigError(f"{path}: a paper's protocol file sets only {list(KEYS)}, got {unknown}.")
    experiments = block.get("experiments") or {}
    foreign = sorted(n for n, e in experiments.items() if not isinstance(e, Mapping) or e.get("paper") != paper)
    if foreign:
        raise ConfigError(f"{path}: experiment(s) {foreign} must say `paper: {paper}` (the folder's paper).")
    unknown_runs = sorted(set(block.get("run") or []) - set(experiments))
    if unknown_runs:
        raise ConfigError(f"{path}: run names {unknown_runs}, not experiments of this file.")
    return block


def read_protocols(papers: Mapping, protocol: str) -> list[tuple[Path, dict]]:
    """(file, checked content) of each paper's settings of ``protocol``, in the registry's order; an experiment
    defined by two papers' files is an error."""
    read, seen = [], {}
    for path in protocol_files(papers, protocol):
        block = read_protocol_file(path, path.parent.parent.name)
        for name in block.get("experiments") or {}:
            if name in seen:
                raise ConfigError(f"{path}: experiment {name!r} is also defined by {seen[name]}.")
            seen[name] = path
        read.append((path, block))
    return read


def add_paper_protocols(config: dict, layers: Sequence[Mapping], papers: Mapping) -> list[Path]:
    """Merge the papers' settings into ``config`` (in place): their full protocol, and that of the config's
    ``protocol`` when it is a reduced one; return their files (full first).

    ``layers``: what was merged into ``config``, in order (each config file's content, then the ``--config``
    values); the first is ``config/config.yaml``. The papers' full files go just after it, their ``run`` entries
    after its own; a reduced protocol's files go just after the last layer setting ``protocol``, their ``run``
    entries after that layer's own. A later layer setting ``run`` replaces the list.

    Under a reduced protocol the experiments are merged anew, layer by layer. Under the full protocol they are
    merged into ``config`` as it stands, as one more config file read just after ``config/config.yaml`` (its
    content, then the later layers again: what Snakemake does for each config file), so the order of the keys
    (experiments, their methods) is the one the caller's merge gives with those experiments in that file.
    """
    protocol = config.get("protocol", FULL)
    full = [block for _, block in read_protocols(papers, FULL)]
    read = read_protocols(papers, protocol) if protocol != FULL else []
    reduced = [block for _, block in read]
    if not full and not reduced:
        return []
    layers = list(layers) or [{}]
    at = max((i for i, layer in enumerate(layers) if "protocol" in layer), default=0) if reduced else 0
    if reduced:
        experiments: dict = {}
        for layer in [layers[0], *full, *layers[1: at + 1], *reduced, *layers[at + 1:]]:
            deep_update(experiments, layer.get("experiments") or {})
        config["experiments"] = experiments
    else:
        later: dict = {}
        for layer in layers[1:]:
            deep_update(later, layer.get("experiments") or {})
        experiments = config.setdefault("experiments", {})
        for block in full:
            deep_update(experiments, block.get("experiments") or {})
        deep_update(experiments, later)
    if full and not any("run" in layer for layer in layers[1:]):
        config["run"] = _runs(layers[0], full)
    if reduced and not any("run" in layer for layer in layers[at + 1:]):
        config["run"] = _runs(layers[at], reduced)
    return [*protocol_files(papers, FULL), *(path for path, _ in read)]


def _runs(layer: Mapping, blocks: Sequence[Mapping]) -> list[str]:
    """``layer``'s own ``run``, then the ``run`` entries of the papers' ``blocks``, in their order."""
    return [*(layer.get("run") or []), *(n for b in blocks for n in b.get("run") or [])]


def load_config(root, *overlays, overrides: Mapping | None = None, papers: Mapping | None = None) -> dict:
    """``config/config.yaml`` of the repository ``root`` with the files ``overlays`` and the ``overrides``
    (``--config``) merged as the workflow merges them, the papers' protocol files included (``papers``: name ->
    spec, by default the registered papers). For tools and tests that read the config outside Snakemake."""
    papers = registry() if papers is None else papers
    layers = [load_yaml(Path(root) / "config/config.yaml") or {}, *(load_yaml(f) or {} for f in overlays),
              dict(overrides or {})]
    config: dict = {}
    for layer in layers:
        deep_update(config, layer)
    add_paper_protocols(config, layers, papers)
    return config
