"""The one markdown-table helper: pandas' to_markdown, compacted, cells written as given."""

from __future__ import annotations

import pandas as pd

from ufskit.tables import markdown_table


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
