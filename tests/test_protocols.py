"""A paper's experiments of each protocol in its folder (ufskit.protocols): the full protocol's merged just after
config/config.yaml whatever the protocol, the quick and smoke ones just after the file setting ``protocol``, all under
later overlays; config/config.yaml, config/quick.yaml and config/smoke.yaml hold no paper's."""

from __future__ import annotations

import pytest
import yaml

from conftest import ROOT
from ufskit import papers
from ufskit.configio import ConfigError
from ufskit.papers.spec import PaperSpec
from ufskit.protocols import add_paper_protocols, deep_update, load_config, read_protocols


@pytest.mark.parametrize("protocol", ["quick", "smoke"])
def test_the_protocol_files_hold_no_papers_experiment_and_each_paper_brings_its_own(protocol):
    own = yaml.safe_load((ROOT / f"config/{protocol}.yaml").read_text())
    assert all(e["paper"] == "generic" for e in (own.get("experiments") or {}).values())
    read = read_protocols(papers.registry(), protocol)
    assert {path.parent.parent.name for path, _ in read} == set(papers.registry())  # every built-in paper has one
    config = load_config(ROOT, ROOT / f"config/{protocol}.yaml")
    assert config["protocol"] == protocol
    # run: the file's own (generic) experiments, then each paper's, in the registry's order
    assert config["run"] == [*(own.get("run") or []), *(n for _, block in read for n in block["run"])]
    for path, block in read:
        for name, experiment in block["experiments"].items():
            assert config["experiments"][name] == experiment and experiment["paper"] == path.parent.parent.name


def test_the_full_protocol_is_config_yaml_with_each_papers_full_file_under_every_protocol():
    own = yaml.safe_load((ROOT / "config/config.yaml").read_text())
    assert all(e["paper"] == "generic" for e in own["experiments"].values())
    read = read_protocols(papers.registry(), "full")
    assert {path.parent.parent.name for path, _ in read} == set(papers.registry())  # every built-in paper has one
    defined = {n: e for _, block in read for n, e in block["experiments"].items()}
    config = load_config(ROOT)
    assert config["protocol"] == "full" and config["run"] == [*own["run"], *(n for _, b in read for n in b["run"])]
    assert config["experiments"] == {**own["experiments"], **defined}
    # a reduced protocol builds on them (its overlays may change them) and runs its own list
    for protocol in ("quick", "smoke"):
        reduced = load_config(ROOT, ROOT / f"config/{protocol}.yaml")
        assert all(reduced["experiments"][n] == e for n, e in defined.items()) and not set(reduced["run"]) & set(defined)


def _paper(tmp_path, name, protocols):
    home = tmp_path / name
    (home / "protocols").mkdir(parents=True)
    for protocol, content in protocols.items():
        (home / "protocols" / f"{protocol}.yaml").write_text(yaml.safe_dump(content))
    return PaperSpec(name=name, title=name, home=home)


def _merge(layers, specs):
    config = {}
    for layer in layers:
        deep_update(config, layer)
    add_paper_protocols(config, layers, {s.name: s for s in specs})
    return config


def test_a_papers_block_goes_after_the_protocol_file_and_under_later_overlays(tmp_path):
    a = _paper(tmp_path, "a", {"quick": {"run": ["qa"], "experiments": {"qa": {"paper": "a", "reps": 2,
                                                                              "methods": {"M": {"k": 1}}}}}})
    full = {"protocol": "full", "run": ["f"], "experiments": {"f": {"paper": "a"}}}
    quick = {"protocol": "quick", "run": ["g"], "experiments": {"g": {"paper": "generic"}}}
    config = _merge([full, quick], [a])
    assert config["run"] == ["g", "qa"] and set(config["experiments"]) == {"f", "g", "qa"}
    # a later overlay changes one setting of the paper's experiment, the rest stays; its `run` replaces the list
    later = {"run": ["qa"], "experiments": {"qa": {"methods": {"M": {"k": 3}}}}}
    config = _merge([full, quick, later], [a])
    assert config["run"] == ["qa"] and config["experiments"]["qa"] == {"paper": "a", "reps": 2, "methods": {"M": {"k": 3}}}
    # without a `run` in the protocol file, the full protocol's list does not leak in
    config = _merge([full, {"protocol": "quick"}], [a])
    assert config["run"] == ["qa"]
    # the full protocol: no paper has settings for it, nothing changes
    assert _merge([full], [a]) == full


def test_a_papers_full_file_goes_after_config_yaml_under_every_protocol(tmp_path):
    a = _paper(tmp_path, "a", {"full": {"run": ["fa"], "experiments": {"fa": {"paper": "a", "reps": 5}}},
                               "quick": {"run": ["qa"], "experiments": {"qa": {"paper": "a", "reps": 1}}}})
    base = {"protocol": "full", "run": ["g"], "experiments": {"g": {"paper": "generic"}}}
    config = _merge([base], [a])
    assert config["run"] == ["g", "fa"] and config["experiments"] == {"g": {"paper": "generic"}, "fa": {"paper": "a", "reps": 5}}
    # an overlay changes the paper's experiment and may replace `run`, as if the experiment were in the first file
    config = _merge([base, {"experiments": {"fa": {"reps": 2}}}], [a])
    assert config["run"] == ["g", "fa"] and config["experiments"]["fa"] == {"paper": "a", "reps": 2}
    assert _merge([base, {"run": ["fa"]}], [a])["run"] == ["fa"]
    # the quick protocol: the full experiments stay defined (under the overlays), the run is the quick one
    config = _merge([base, {"protocol": "quick", "experiments": {"fa": {"reps": 3}}}], [a])
    assert config["run"] == ["qa"] and config["experiments"]["fa"] == {"paper": "a", "reps": 3}
    assert list(config["experiments"]) == ["g", "fa", "qa"]


def test_under_the_full_protocol_the_callers_key_order_stays_as_if_config_yaml_held_the_papers_experiments(tmp_path):
    """Snakemake merges the --configfile overlays first, then config/config.yaml, then the overlays again: an
    overlay's keys come first. The papers' full files keep that order (their methods' order is the tables')."""
    a = _paper(tmp_path, "a", {"full": {"run": ["fa"], "experiments": {"fa": {"paper": "a", "methods": {"A": {"k": 1}}}}}})
    base = {"protocol": "full", "run": ["g"], "experiments": {"g": {"paper": "generic"}}}
    overlay = {"experiments": {"fa": {"methods": {"B": {"k": 2}, "A": {"k": 3}}}}}

    def snakemake_merge(first, overwrite):
        config = deep_update({}, overwrite)
        return deep_update(deep_update(config, first), overwrite)

    config = snakemake_merge(base, overlay)
    add_paper_protocols(config, [base, overlay], {"a": a})
    with_the_experiment_in_the_file = snakemake_merge(deep_update(dict(base), {"experiments": {
        "fa": {"paper": "a", "methods": {"A": {"k": 1}}}}}), overlay)
    assert config["experiments"] == with_the_experiment_in_the_file["experiments"]
    assert list(config["experiments"]) == ["fa", "g"] and list(config["experiments"]["fa"]["methods"]) == ["B", "A"]
    assert config["experiments"]["fa"]["methods"]["A"] == {"k": 3} and config["run"] == ["g", "fa"]


def test_a_wrong_paper_protocol_file_is_refused_naming_it(tmp_path):
    full = {"protocol": "smoke", "run": [], "experiments": {}}
    cases = [({"seed": 1}, r"sets only \['run', 'experiments'\], got \['seed'\]"),
             ({"experiments": {"x": {"paper": "other"}}}, r"experiment\(s\) \['x'\] must say `paper: bad`"),
             ({"run": ["y"], "experiments": {"x": {"paper": "bad"}}}, r"run names \['y'\], not experiments")]
    for i, (content, message) in enumerate(cases):
        bad = _paper(tmp_path / str(i), "bad", {"smoke": content})
        with pytest.raises(ConfigError, match=rf"bad/protocols/smoke.yaml: .*{message}"):
            _merge([full], [bad])
    one = _paper(tmp_path, "one", {"smoke": {"experiments": {"x": {"paper": "one"}}}})
    two = _paper(tmp_path, "two", {"smoke": {"experiments": {"x": {"paper": "two"}}}})
    with pytest.raises(ConfigError, match=r"two/protocols/smoke.yaml: experiment 'x' is also defined by .*one/"):
        _merge([full], [one, two])
