"""The one way the reports write a markdown table (pandas' ``DataFrame.to_markdown``, compacted) and its HTML page.

Snakemake's HTML report shows images, PDF and HTML inline but offers other files only as downloads, so each
markdown document of the report is also written as a small HTML page (``write_markdown``).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd


def markdown_table(table, columns: list[str] | None = None) -> str:
    """A GitHub markdown table (a header, a rule, a line per row) of ``table``, ending with a newline.

    ``table`` is a DataFrame (its index is not shown: ``reset_index`` first to show it) or a list of
    rows with their ``columns``. Cells are written as given (text is not parsed as numbers, so '0.50'
    stays '0.50'; format numbers before; ``|`` is escaped). The padding that aligns the columns is removed: one space
    each side of a cell, so a table's lines stay short and its text does not change when a long cell
    appears in another row.
    """
    frame = table if isinstance(table, pd.DataFrame) else pd.DataFrame(list(table), columns=columns)
    frame = frame.rename(columns=_escape).map(_escape)
    text = frame.to_markdown(index=False, tablefmt="github", disable_numparse=True)
    return "\n".join(_compact(line) for line in text.splitlines()) + "\n"


def _escape(value) -> str:
    """A cell's text on one line, with ``|`` escaped (``\\|``): either would otherwise end the cell."""
    return str(value).replace("|", "\\|").replace("\n", " ")


def _compact(line: str) -> str:
    """``|---|---|`` for the rule; ``| a | b |`` for a row (no alignment padding; an escaped ``\\|`` is text)."""
    if re.fullmatch(r"\|(-+\|)+", line):
        return "|" + "---|" * (line.count("|") - 1)
    return re.sub(r"(?<!\\)\| +", "| ", re.sub(r" +\|", " |", line))


# the look of a table's HTML page: readable type, ruled and striped rows, a header that stays in view
_STYLE = """body{font:14px/1.45 system-ui,sans-serif;color:#222;margin:1.2em;max-width:110em}
h1{font-size:1.35em}h2{font-size:1.15em;margin-top:1.4em}h3{font-size:1em}
table{border-collapse:collapse;margin:.8em 0}th,td{border:1px solid #ccc;padding:.25em .6em;vertical-align:top}
th{background:#eef1f5;position:sticky;top:0;text-align:left}tr:nth-child(even) td{background:#f8f9fb}
td.v{white-space:nowrap}code{background:#f0f0f0;padding:0 .2em}pre{background:#f6f6f6;padding:.6em;overflow-x:auto}"""
_SHORT = ' class="v"'  # a short cell (a value such as "71.7 (81.5)") is kept on one line; text cells wrap


def write_markdown(text: str, md_path, html_path) -> None:
    """Write the markdown document ``text`` to ``md_path`` and its HTML page (``markdown_html``) to ``html_path``."""
    Path(md_path).write_text(text)
    Path(html_path).write_text(markdown_html(text, title=Path(md_path).stem))


def markdown_html(text: str, title: str) -> str:
    """A standalone HTML page of a markdown document as the reports write it.

    The forms they use: ``#`` headings, paragraphs, ``-`` lists, tables (``markdown_table``), fenced code,
    inline ``**bold**`` and backquoted code. The first heading, or ``title``, is the page title.
    """
    body, block = [], []  # the page's HTML; the lines of the block being read
    kind = None  # "p", "ul", "table" or "pre": what ``block`` holds
    for line in [*text.splitlines(), ""]:
        stripped = line.strip()
        if kind == "pre":
            if stripped.startswith("```"):
                body.append("<pre>" + html.escape("\n".join(block)) + "</pre>")
                block, kind = [], None
            else:
                block.append(line)
            continue
        new = ("pre" if stripped.startswith("```") else "table" if stripped.startswith("|")
               else "ul" if stripped.startswith(("- ", "* ")) else "h" if re.match(r"#{1,6} ", stripped)
               else None if not stripped else "li" if kind == "ul" and line[:1].isspace() else "p")
        if new == "li":  # an indented line continues the list item above it
            block[-1] += " " + stripped
            continue
        if new != kind or new in ("h", "pre"):
            body.extend(_block(kind, block))
            block, kind = [], new
        if new == "h":
            level = len(stripped) - len(stripped.lstrip("#"))
            body.append(f"<h{level}>{_inline(stripped[level:].strip())}</h{level}>")
            kind = None
        elif new == "ul":
            block.append(stripped[2:])
        elif new in ("table", "p"):
            block.append(stripped)
    heading = re.search(r"^# (.+)$", text, re.M)
    title = heading.group(1).strip() if heading else title
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n")


def _block(kind, lines) -> list[str]:
    """The HTML of a finished block of ``lines``: a paragraph, a list or a table."""
    if kind == "p":
        return ["<p>" + _inline(" ".join(lines)) + "</p>"]
    if kind == "ul":
        return ["<ul>", *(f"<li>{_inline(item)}</li>" for item in lines), "</ul>"]
    if kind == "table":
        rows = [_cells(line) for line in lines if not re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", line)]
        head = "".join(f"<th>{_inline(c)}</th>" for c in rows[0])
        cells = ("<tr>" + "".join(f"<td{_SHORT if len(c) <= 24 else ''}>{_inline(c)}</td>" for c in row) + "</tr>"
                 for row in rows[1:])
        return ["<table>", f"<thead><tr>{head}</tr></thead>", "<tbody>", *cells, "</tbody>", "</table>"]
    return []


def _cells(line: str) -> list[str]:
    """The cells of a table row ``| a | b\\|c |``: split at the unescaped ``|``, the escapes undone."""
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def _inline(text: str) -> str:
    """HTML-escaped ``text`` with ``**bold**`` and backquoted code marked up."""
    text = html.escape(text, quote=False)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", text)
    return re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
