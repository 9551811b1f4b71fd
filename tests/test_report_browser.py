"""The HTML report (`snakemake --report`) opened in a real browser: headless Chromium.

The walk below is run on the quick run's report (tests/test_quick_workflow.py, which has every paper, the
benchmark and the readings); this file holds it and checks that it sees a page's JavaScript errors.

A copy of the report gets two small scripts: one at the top of <head> that records JavaScript errors
(uncaught exceptions, rejected promises, console.error), one at the end of <body> that, once the report's
app has rendered, measures the landing text beside the DAG (its details folded), opens every category and
each of its results folders (a table of its files, each with its view button), opens one table page and
shows one figure the way the view button does, and writes what it found as JSON into the page; Chromium's
--dump-dom returns that page and --screenshot shows the figure view (a non-blank image). The papers' tables
are HTML pages (ufskit.tables.write_markdown) shown in an iframe of their data URI; the walk counts the rows
and cells of the table the page holds.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import zlib

import pytest

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)

RECORD_ERRORS = """<script>
window.ufsErrors = [];
window.addEventListener("error", (e) => window.ufsErrors.push("error: " + e.message));
window.addEventListener("unhandledrejection", (e) => window.ufsErrors.push("unhandled rejection: " + e.reason));
const ufsConsoleError = console.error;
console.error = (...args) => { window.ufsErrors.push("console.error: " + args.join(" ")); ufsConsoleError(...args); };
</script>"""

# Runs after the report's own scripts: `app`, `categories` and `results` are the report's globals.
WALK = r"""<script>
window.addEventListener("load", () => setTimeout(async () => {
  const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const found = {categories: {}, figure: null};
  try {
    const landing = document.querySelector("#app .prose");  // the workflow description beside the DAG
    found.landing = {words: landing.innerText.split(/\s+/).length, details: landing.querySelectorAll("details").length};
    for (const category of Object.keys(categories)) {
      const subcategories = Object.keys(categories[category]);
      const shown = {listed: 0, files: [], tables: []};
      for (const subcategory of subcategories) {  // the view of one results folder: a table of its files
        app.setView({navbarMode: "menu"});  // back to the menu first, as a reader does: the view is rebuilt
        await wait(300);
        app.setView({navbarMode: "subcategory", category: category, subcategory: subcategory});
        await wait(500);
        const text = document.querySelector("#app").textContent;
        const files = categories[category][subcategory].filter((f) => text.includes(f));
        shown.listed += categories[category][subcategory].length;
        shown.files.push(...files);
        shown.tables.push(document.querySelectorAll("#app table tr").length);
      }
      found.categories[category] = shown;
    }
    const paths = Object.keys(results);
    const page = paths.find((p) => p.endsWith("table1.html"));
    app.setView({content: "html", contentPath: results[page].data_uri, resultPath: page});
    await wait(500);
    const frame = Array.from(document.querySelectorAll("#app iframe")).find((f) => f.src === results[page].data_uri);
    const doc = new DOMParser().parseFromString(await (await fetch(results[page].data_uri)).text(), "text/html");
    found.table = {path: page, shown: Boolean(frame), rows: doc.querySelectorAll("table tr").length,
                   cells: doc.querySelectorAll("table td").length};
    // the benchmark's critical-difference figure (the tallest; once clipped at the top), else the first figure
    const pngs = paths.filter((p) => results[p].mime_type === "image/png");
    const figure = pngs.find((p) => p.endsWith("/cd.png")) || pngs[0];
    app.setView({content: "img", contentPath: results[figure].data_uri, resultPath: figure});
    await wait(500);
    const img = Array.from(document.querySelectorAll("#app img")).find((i) => i.src === results[figure].data_uri);
    const box = img ? img.getBoundingClientRect() : {top: -1, left: -1};
    found.figure = {path: figure, width: img ? img.naturalWidth : 0, height: img ? img.naturalHeight : 0,
                    top: box.top, left: box.left};
  } catch (err) {
    window.ufsErrors.push("walk: " + err);
  }
  found.errors = window.ufsErrors;
  const out = document.createElement("pre");
  out.id = "ufs-check";
  out.style.display = "none";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
}, 500));
</script>"""


def instrumented(report, out):
    """A copy of the report at ``out`` with the error recorder and the walk injected."""
    html = report.read_text()
    head, _, tail = html.replace("<head>", "<head>" + RECORD_ERRORS, 1).rpartition("</body>")
    out.write_text(head + WALK + "</body>" + tail)
    return out


def chromium(*args, page):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,1000",
           "--virtual-time-budget=20000", *args, page.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def browse(report, workdir):
    """What the walk found in the report, and the path of a screenshot of its last view."""
    page = instrumented(report, workdir / "checked.html")
    dom = chromium("--dump-dom", page=page).stdout
    match = re.search(r'<pre id="ufs-check"[^>]*>(.*?)</pre>', dom, re.S)
    assert match, "the walk wrote nothing: the report's app did not load (DOM starts: " + dom[:500] + ")"
    shot = workdir / "report.png"
    chromium(f"--screenshot={shot}", page=page)
    text = match.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return json.loads(text), shot


def distinct_colours(png) -> int:
    """How many different byte values the PNG's pixel rows hold (1-2 for a blank page)."""
    data = png.read_bytes()
    chunks, pos = [], 8
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        if data[pos + 4:pos + 8] == b"IDAT":
            chunks.append(data[pos + 8:pos + 8 + length])
        pos += 12 + length
    return len(set(zlib.decompress(b"".join(chunks))))


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
def test_the_browser_check_sees_javascript_errors(tmp_path):
    fake = tmp_path / "fake.html"
    fake.write_text("<html><head></head><body><div id='app'></div><script>\n"
                    "const categories = {}; const results = {};\nundefinedFunction();\n</script></body></html>")
    found, _ = browse(fake, tmp_path)
    assert any("undefinedFunction" in e for e in found["errors"]), found["errors"]
