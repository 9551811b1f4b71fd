"""The papers: one folder (sub-package) each, with its evaluations, tables, figures, rules and published numbers.

Each paper's package exports one ``PAPER`` (``PaperSpec``, see ``spec`` for the folder's parts); ``registry()``
holds them, found by scanning this package. The claim vocabulary and ``claims_frame`` (the claims.csv every paper writes) live here, below the report.
"""

import numpy as np
import pandas as pd

from .spec import (
    PaperSpec,
    Published,
    check_experiments,
    paper_package,
    register,
    register_folders,
    registry,
    scored,
    titles,
)

__all__ = ["CLAIM_COLUMNS", "EXTRA_MARK", "EXTRA_NOTE", "NOT_RUN", "REFERENCE", "VERDICTS", "PaperSpec", "Published",
           "added_styles", "check_experiments", "claims_frame", "extra_labels", "extra_note", "normalise_verdict",
           "paper_methods", "paper_package", "paper_rows", "read_published", "reference_labels", "register",
           "register_folders", "registry", "scored", "shown_label", "titles", "verdict", "with_in_paper"]

# The one vocabulary of claim verdicts, in every claims.md, claims.csv and the scorecard.
VERDICTS = ("holds", "partly holds", "does not hold", "not run")
NOT_RUN = VERDICTS[3]

# The selector whose draws are the chance reference: a method of the experiments feeding the curve figures
# and the benchmark, drawn as a band, tested against, never a row of a paper's table, claim or the scorecard.
REFERENCE = "Random"


def reference_labels(methods: dict) -> list[str]:
    """Labels of the methods (config ``methods``: label -> spec) that run the reference selector."""
    return [label for label, spec in methods.items() if spec["selector"] == REFERENCE]


def paper_methods(methods: dict) -> dict:
    """``methods`` without the reference: the methods a paper's tables, claims and curves are about."""
    return {label: spec for label, spec in methods.items() if spec["selector"] != REFERENCE}


# A method added by the config's ``extra_methods`` (a user's selector): a row or curve of a paper's main tables and
# figures, marked so, in their statistics, never in a claim or the scorecard.
EXTRA_MARK = "\u2020"
EXTRA_NOTE = (f"{EXTRA_MARK} not in the paper: a method added by the config's extra_methods (docs/own-selector.md); "
              "no published number, in no claim and not in the scorecard.")


def extra_labels(methods: dict) -> list[str]:
    """Labels of the methods (config ``methods``) added by ``extra_methods`` (marked ``extra: true``)."""
    return [label for label, spec in methods.items() if spec.get("extra")]


def with_in_paper(frame: pd.DataFrame, methods: dict, column: str = "method") -> pd.DataFrame:
    """``frame`` with a boolean column ``in_paper`` (False on the rows of added methods) when ``methods`` has added
    ones; unchanged otherwise, so a run without an overlay writes the same tables as before."""
    extra = extra_labels(methods)
    return frame.assign(in_paper=~frame[column].isin(extra)) if extra else frame


def paper_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of the paper's own methods (``in_paper`` not False): what claims and the scorecard read."""
    return frame[frame["in_paper"].astype(bool)] if "in_paper" in frame else frame


def shown_label(label: str, frame: pd.DataFrame, column: str = "method") -> str:
    """``label`` as tables and legends show it: with ``EXTRA_MARK`` when its rows of ``frame`` are not in the paper."""
    extra = "in_paper" in frame and not frame.loc[frame[column] == label, "in_paper"].astype(bool).all()
    return label + EXTRA_MARK if extra else label


def added_styles(frame: pd.DataFrame, column: str = "method") -> dict[str, int]:
    """Label -> index, in first-seen order, of ``frame``'s methods not in the paper (``in_paper`` False): the
    ``added`` style of their curves (``ufskit.plots.method_style``); empty without such rows."""
    labels = frame.loc[~frame["in_paper"].astype(bool), column] if "in_paper" in frame else []
    return {label: i for i, label in enumerate(dict.fromkeys(labels))}


def extra_note(frame: pd.DataFrame) -> str:
    """The markdown footnote of ``EXTRA_MARK`` when ``frame`` has rows of added methods, else ""."""
    return f"\n{EXTRA_NOTE}\n" if "in_paper" in frame and not frame["in_paper"].astype(bool).all() else ""


def verdict(ok: bool, partly: bool = False) -> str:
    """The verdict of a judged claim: "holds" when ``ok``, else "partly holds" when ``partly``, else "does not hold"."""
    return VERDICTS[0] if ok else (VERDICTS[1] if partly else VERDICTS[2])


def read_published(path) -> pd.DataFrame:
    """A published-numbers CSV of a paper's ``published/`` folder (its '#' lines name the paper's table it comes from)."""
    return pd.read_csv(path, comment="#")


CLAIM_COLUMNS = ["id", "claim", "verdict", "numbers"]


def normalise_verdict(verdict) -> str:
    """A paper's verdict (True/False, or one of ``VERDICTS`` with any case and markdown bold) as the scorecard's."""
    if isinstance(verdict, (bool, np.bool_)):
        return VERDICTS[0] if verdict else VERDICTS[2]
    word = str(verdict).strip().strip("*").strip().lower()
    if word not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}; known: {list(VERDICTS)} or a bool.")
    return word


def claims_frame(records) -> pd.DataFrame:
    """A paper's claims.csv: one row per verdict (id, claim, verdict, numbers).

    ``records`` are dicts with those keys; ``id`` is the claim's key in the paper's
    claims list (``published/claims.csv`` of its folder; several verdicts
    may share one id, e.g. one per setting); the verdict is normalised by ``normalise_verdict``.
    """
    frame = pd.DataFrame(list(records), columns=CLAIM_COLUMNS)
    if frame[["id", "claim"]].isna().any().any() or (frame["id"].str.strip() == "").any():
        raise ValueError("every claim needs an id and a text.")
    frame["verdict"] = frame["verdict"].map(normalise_verdict)
    frame["numbers"] = frame["numbers"].fillna("")
    return frame
