"""The token steps of the NRFS text chain, each on a hand-computed case."""

from __future__ import annotations

import numpy as np
import pytest

from ufskit.text import (
    TEXT_STEPS,
    apply_steps,
    count_matrix,
    remove_stopwords,
    stem_tokens,
    strip_headers,
    tokenize,
)

POST = (
    "From: someone@example.com (Some One)\r\n"
    "Subject: Re: Fast cars\r\n"
    "\tand engines\r\n"
    "Organization: Example University\r\n"
    "Lines: 3\r\n"
    "\r\n"
    "I like V8 engines, don't you?\r\n"
    "\r\n"
    "Organization: not a header, part of the body\r\n"
)


def test_strip_headers_keeps_subject_and_body_only():
    out = strip_headers(POST)
    assert "someone" not in out and "Example University" not in out and "Lines" not in out
    assert out.startswith(" Re: Fast cars \tand engines\n")
    assert "I like V8 engines" in out and "not a header, part of the body" in out


def test_strip_headers_leaves_plain_text_alone():
    plain = "Cars are fast.\n\nEngines: loud."
    assert strip_headers(plain) == plain


def test_tokenize_hand_case():
    assert tokenize(POST) == [
        "re", "fast", "cars", "and", "engines",  # subject, folded line included
        "like", "engines", "don", "you",  # "I", "V", "t" are single letters; "8" is not a letter
        "organization", "not", "header", "part", "of", "the", "body",
    ]


def test_remove_stopwords_hand_case():
    assert remove_stopwords(["the", "car", "is", "fast", "and", "very", "cheap"]) == ["car", "fast", "cheap"]


def test_stem_matches_porter_1980_examples():
    words = ["caresses", "ponies", "ties", "caress", "cats", "feed", "agreed", "plastered",
             "motoring", "sing", "conflated", "relational", "generalization"]
    expected = ["caress", "poni", "ti", "caress", "cat", "feed", "agre", "plaster",
                "motor", "sing", "conflat", "relat", "gener"]
    assert stem_tokens(words) == expected


def test_apply_steps_runs_in_order_and_rejects_unknown():
    tokens = ["the", "running", "dogs"]
    assert apply_steps(tokens, ["stopwords", "stem"]) == ["run", "dog"]
    assert apply_steps(tokens, []) == tokens
    assert set(TEXT_STEPS) == {"stopwords", "stem"}
    with pytest.raises(ValueError, match="unknown text step 'lemma'"):
        apply_steps(tokens, ["lemma"])


def test_count_matrix_hand_case():
    docs = [["b", "a", "b"], ["c"], ["a", "c", "c", "c"], []]
    counts, vocab = count_matrix(docs)
    assert vocab.tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(counts.toarray(), [[1, 2, 0], [0, 0, 1], [1, 0, 3], [0, 0, 0]])
    counts, vocab = count_matrix(docs, min_df=2)  # "b" occurs in one document only
    assert vocab.tolist() == ["a", "c"]
    np.testing.assert_array_equal(counts.toarray(), [[1, 0], [0, 1], [1, 3], [0, 0]])


def test_count_matrix_bad_min_df():
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="min_df"):
            count_matrix([["a"]], min_df=bad)
