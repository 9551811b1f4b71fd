"""The one markdown-table helper: pandas' to_markdown, compacted, cells written as given."""

from __future__ import annotations

import pandas as pd

from ufskit.tables import markdown_html, markdown_table, write_markdown


def test_rows_and_frames_give_the_same_compact_table():
    rows = [["LS", "0.50", "", 3], ["MCFS", "1e-05", "3 (1)", 12]]
    text = markdown_table(rows, ["method", "K-means ACC", "note", "n"])
    assert text == ("| method | K-means ACC | note | n |\n|---|---|---|---|\n"
                    "| LS | 0.50 | | 3 |\n| MCFS | 1e-05 | 3 (1) | 12 |\n")
    assert markdown_table(pd.DataFrame(rows, columns=["method", "K-means ACC", "note", "n"])) == text


def test_a_pipe_or_a_newline_in_a_cell_does_not_break_the_row():
    text = markdown_table([["a|b", "two\nlines"]], ["x | y", "z"])
    assert text.splitlines() == ["| x \\| y | z |", "|---|---|", "| a\\|b | two lines |"]


def test_a_table_without_rows_keeps_its_header():
    assert markdown_table([], ["a", "b"]) == "| a | b |\n|---|---|\n"


def test_the_html_page_of_a_report_document_has_its_table_headings_list_and_code():
    long = "the reason, in a sentence"
    text = ("# IVFS Table 1 (experiment e)\n\nCells: **reproduced** (published) <b>.\n\n## wine\n- **holds**; a\n"
            "  continued\n- `knn_acc` best\n\n" + markdown_table([["a|b", f"1 < 2 {long}"]], ["x", "y"])
            + "\n```\n  dataset  LS\n```\n")
    page = markdown_html(text, title="table1")
    assert "<title>IVFS Table 1 (experiment e)</title>" in page
    assert "<h1>IVFS Table 1 (experiment e)</h1>" in page and "<h2>wine</h2>" in page
    assert "<p>Cells: <strong>reproduced</strong> (published) &lt;b&gt;.</p>" in page
    assert "<li><strong>holds</strong>; a continued</li>\n<li><code>knn_acc</code> best</li>" in page
    assert "<thead><tr><th>x</th><th>y</th></tr></thead>" in page
    assert f"<tr><td class=\"v\">a|b</td><td>1 &lt; 2 {long}</td></tr>" in page  # a long cell may wrap
    assert "<pre>  dataset  LS</pre>" in page
    assert page.count("<table>") == 1 and page.count("<tr>") == 2


def test_write_markdown_writes_the_document_and_its_page(tmp_path):
    text = "Per dataset:\n\n" + markdown_table([["wine", "0.9"]], ["dataset", "ACC"])
    write_markdown(text, tmp_path / "summary.md", tmp_path / "summary.html")
    assert (tmp_path / "summary.md").read_text() == text
    page = (tmp_path / "summary.html").read_text()
    assert "<title>summary</title>" in page and "<td class=\"v\">wine</td><td class=\"v\">0.9</td>" in page
