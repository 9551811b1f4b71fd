"""Raw text -> term counts: the first half of the NRFS text chain, as named steps on tokens.

The NRFS paper's order is: stop-word removal, stemming, tf-idf, L2 document
normalisation, bi-normalisation. The first two act on tokens and live here
(``TEXT_STEPS``); the rest act on the count matrix and belong to preprocessing.

Choices (also in docs/fidelity/loaders.md):

* A newsgroup post starts with an RFC-822 header block ended by the first blank
  line; it is dropped (addresses, organisations and line counts are not topic
  words) except the Subject value, which the author wrote. scikit-learn's
  ``fetch_20newsgroups(remove="headers")`` would drop the subject as well.
* Tokens are maximal runs of ASCII letters, lower-cased, of two letters or more
  (scikit-learn's default token rule restricted to letters): numbers and
  single letters carry no topic.
* Stop words are scikit-learn's ``ENGLISH_STOP_WORDS`` (318 words); stemming is
  the original Porter (1980) algorithm as implemented by nltk.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import chain

import numpy as np
import scipy.sparse as sp
from nltk.stem.porter import PorterStemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

_HEADER_LINE = re.compile(r"^[A-Za-z][A-Za-z0-9-]*:")
_TOKEN = re.compile(r"[a-z]{2,}")
_STEMMER = PorterStemmer(mode=PorterStemmer.ORIGINAL_ALGORITHM)


def strip_headers(text: str) -> str:
    """The body of a message with its header block replaced by the Subject value.

    Text that does not open with a header line (``Name: value``) is returned unchanged,
    so plain documents are safe. Folded header lines (starting with white space)
    continue the previous header.
    """
    text = text.replace("\r\n", "\n")
    if not _HEADER_LINE.match(text):
        return text
    head, _, body = text.partition("\n\n")
    subject, in_subject = [], False
    for line in head.split("\n"):
        if line[:1] in (" ", "\t"):
            if in_subject:
                subject.append(line)
            continue
        in_subject = line.lower().startswith("subject:")
        if in_subject:
            subject.append(line.split(":", 1)[1])
    return "\n".join([" ".join(subject), body])


def tokenize(text: str) -> list[str]:
    """Lower-case alphabetic tokens (2+ letters) of a message, headers except Subject removed."""
    return _TOKEN.findall(strip_headers(text).lower())


def remove_stopwords(tokens: list[str]) -> list[str]:
    """Drop scikit-learn's English stop words."""
    return [t for t in tokens if t not in ENGLISH_STOP_WORDS]


@cache
def _stem(token: str) -> str:
    return _STEMMER.stem(token)


def stem_tokens(tokens: list[str]) -> list[str]:
    """Porter-stem each token (cached: a corpus repeats the same words many times)."""
    return [_stem(t) for t in tokens]


TEXT_STEPS = {"stopwords": remove_stopwords, "stem": stem_tokens}


def check_steps(steps) -> list[str]:
    """The step names as a list, or ValueError naming an unknown one."""
    steps = list(steps)
    for step in steps:
        if step not in TEXT_STEPS:
            raise ValueError(f"unknown text step {step!r}; known: {sorted(TEXT_STEPS)}.")
    return steps


def apply_steps(tokens: list[str], steps) -> list[str]:
    """Run the named ``TEXT_STEPS`` on ``tokens`` in the given order."""
    for step in check_steps(steps):
        tokens = TEXT_STEPS[step](tokens)
    return tokens


def count_matrix(docs_tokens, min_df: int = 1) -> tuple[sp.csr_matrix, np.ndarray]:
    """Documents x terms counts (CSR, int64) and the sorted vocabulary.

    Terms found in fewer than ``min_df`` documents are left out. Built in one
    sparse construction from the flattened tokens (no loop over documents x terms).
    """
    if isinstance(min_df, bool) or not isinstance(min_df, (int, np.integer)) or min_df < 1:
        raise ValueError(f"min_df must be an int >= 1, got {min_df!r}.")
    docs_tokens = list(docs_tokens)
    lengths = np.fromiter((len(d) for d in docs_tokens), dtype=np.intp, count=len(docs_tokens))
    flat = np.array(list(chain.from_iterable(docs_tokens)), dtype=str)
    vocab, term = np.unique(flat, return_inverse=True)
    doc = np.repeat(np.arange(len(docs_tokens)), lengths)
    counts = sp.csr_matrix(
        (np.ones(flat.size, dtype=np.int64), (doc, term.ravel())), shape=(len(docs_tokens), vocab.size)
    )
    counts.sum_duplicates()
    df = np.bincount(counts.indices, minlength=vocab.size)
    keep = np.flatnonzero(df >= min_df)
    return counts[:, keep].tocsr(), vocab[keep]
