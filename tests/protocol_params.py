"""The selector parameters every method of the full protocol runs with (config/config.yaml and each paper
folder's protocols/full.yaml).

``protocol_params()`` builds, for every experiment, method and grid point, the
selector the workflow builds (``make_selector`` on the config's parameters) and
records its ``get_params()``: the explicit values *and* the defaults they rely
on. Dataset placeholders ("n_classes", "upto100", ...) stay symbolic (they are
resolved per dataset at run time), and ``random_state`` is the one the workflow
overrides with the run's seed. ``tests/data/protocol_params.json`` is this
mapping taken before any default changed; the contract test compares against it,
so a changed default cannot silently change a reproduced table. Regenerate only
when a protocol itself is meant to change:

    PYTHONPATH=src python tests/protocol_params.py
"""

from __future__ import annotations

import json
from pathlib import Path

from ufskit.experiments import settings_by_slug
from ufskit.protocols import load_config
from ufskit.selectors import make_selector

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "tests" / "data" / "protocol_params.json"


def protocol_params(root: Path = ROOT) -> dict:
    """``{experiment: {method: {slug: {"selector": name, "params": get_params()}}}}`` of the full protocol of the
    repository ``root`` (its config/config.yaml with the papers' protocols/full.yaml)."""
    config = load_config(root)
    out = {}
    for name, experiment in sorted(config["experiments"].items()):
        methods = {}
        for label, spec in sorted(experiment["methods"].items()):
            methods[label] = {
                slug: {"selector": spec["selector"], "params": make_selector(spec["selector"], **params).get_params()}
                for slug, params in sorted(settings_by_slug(experiment, label).items())
            }
        out[name] = methods
    return json.loads(json.dumps(out))  # tuples -> lists, as the snapshot file stores them


if __name__ == "__main__":
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    SNAPSHOT.write_text(json.dumps(protocol_params(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {SNAPSHOT.relative_to(ROOT)}")
