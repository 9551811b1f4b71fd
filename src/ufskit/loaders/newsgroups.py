"""Raw 20 Newsgroups messages -> term counts, through ``ufskit.text``.

Messages sit at ``.../<split>/<group>/<id>`` (the bydate layout). The source may
give the message files, folders holding them, or a file-list TSV (the registry's
``file_list``, paths relative to its folder). Only the sampled messages are read.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import text
from ..data import Dataset
from ..download import read_file_list
from ._common import check_options, select_rows

DEFAULT_STEPS = ("stopwords", "stem")  # the NRFS paper's order; tf-idf etc. come in preprocessing


def _message_files(paths: list[Path], groups) -> list[Path]:
    """Message files of ``groups``, ordered by group (as listed), split, then numeric id."""
    files = set()
    for p in paths:
        if p.is_dir():
            files.update(f for f in p.rglob("*") if f.is_file())
        elif p.suffix.lower() == ".tsv":
            files.update(p.parent / row["path"] for row in read_file_list(p))
        else:
            files.add(p)
    rank = {g: i for i, g in enumerate(groups)}
    kept = [f for f in files if f.parent.name in rank]

    def key(f: Path):
        return rank[f.parent.name], f.parent.parent.name, int(f.name) if f.name.isdigit() else -1, f.name

    return sorted(kept, key=key)


def _relative(f: Path) -> str:
    return "/".join(f.parts[-3:])


def load_newsgroups_raw(paths: list[Path], options: dict, seed: int) -> Dataset:
    """Count matrix of ``per_class`` sampled messages of each group (labels in the order of ``groups``)."""
    opts = check_options(options, "newsgroups_raw", required=("groups",),
                         optional=("per_class", "text_steps", "min_df"))
    groups = list(opts["groups"])
    steps = text.check_steps(opts.get("text_steps", DEFAULT_STEPS))  # fail before reading any file
    files = _message_files(paths, groups)
    group_of = np.array([f.parent.name for f in files], dtype=object)
    rows, y, info = select_rows(group_of, classes=groups, per_class=opts.get("per_class"), seed=seed)
    docs = [
        text.apply_steps(text.tokenize(files[r].read_bytes().decode("latin-1")), steps) for r in rows
    ]
    counts, vocab = text.count_matrix(docs, min_df=opts.get("min_df", 1))
    info.pop("sampled_rows", None)  # row numbers of an internal list: the document ids below say it all
    info.update(
        documents=[_relative(files[r]) for r in rows],
        available_per_group={g: int((group_of == g).sum()) for g in groups},
        text_steps=steps,
        min_df=int(opts.get("min_df", 1)),
        header_handling="headers dropped except the Subject value",
    )
    return Dataset(counts.toarray().astype(np.float64), y, vocab, info)
