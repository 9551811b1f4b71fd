"""The user's documentation: generated pages are up to date, relative links lead to files that exist."""

from __future__ import annotations

import importlib.util
import re

import pytest

from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")  # [text](target)


def load(path):
    """The module at ``path`` (the docs' generators are scripts, not package modules)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def relative_links(page):
    """The relative link targets of a markdown page, without their #anchors (code blocks left out)."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    targets = (m.group(1).split("#")[0] for m in LINK.finditer(text))
    return [t for t in targets if t and not re.match(r"[a-z]+:", t)]


def test_selectors_page_is_generated_from_the_classes():
    render = load(ROOT / "docs/render_selectors.py")
    assert (ROOT / "docs/selectors.md").read_text() == render.render(), (
        "docs/selectors.md is out of date: run python docs/render_selectors.py")


def test_selectors_page_lists_every_selector_with_its_constraints():
    from ufskit.selectors import SELECTORS

    page = (ROOT / "docs/selectors.md").read_text()
    for name in SELECTORS:
        assert f"\n## {name}\n" in page, name
    assert "| `n_neighbors` | `'auto'` | one of 'auto'; an int in the range [1, inf) | `5` (ils, nrfs) |" in page


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve(page):
    missing = [t for t in relative_links(page) if not (page.parent / t).exists()]
    assert not missing, f"{page.relative_to(ROOT)} links to missing files: {missing}"


def test_the_link_check_sees_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("[ok](page.md#top) [web](https://example.org) [gone](docs/nothing.md)\n"
                    "```\n[in code](not/checked.md)\n```\n")
    assert relative_links(page) == ["page.md", "docs/nothing.md"]
