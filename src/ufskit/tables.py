"""The one way the reports write a markdown table: pandas' ``DataFrame.to_markdown`` (tabulate), compacted."""

from __future__ import annotations

import re

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
