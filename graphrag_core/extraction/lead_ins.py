"""Lists whose lead-in is in an earlier chunk of the section (issue 22).

"Our electronic payment competitors principally include:" can end one chunk while its list
("Local and Regional Networks: … Examples include X, Y and Z.") runs on in the next. The rules
read a lead-in's list only in the chunk that holds the lead-in, so the items after a chunk
boundary went unread. A chunk's `lead_in` is the lead-in sentence whose list is still open where
the chunk starts: the extractor reads the chunk as continuing that list and the grounding gate
lets it name the filer, while the chunk's text, and so every evidence quote, stays the chunk's
own (the lead-in is never put into the text).

A list stays open, as the rules read it inside a chunk, over its items: bullets and
"Label: …" paragraphs, and here also footnotes ("(1) Source: …") and a table with the sentence
that introduces it ("The following chart compares our network with …:"), which sit inside a
list without ending it. Any other paragraph closes it; a paragraph whose last sentence is a
lead-in opens a new one.
"""

from __future__ import annotations

import polars as pl

from graphrag_core.extraction.backends import rules_cues as cues
from graphrag_core.extraction.backends.rules_continuation import opens_list
from graphrag_core.extraction.backends.rules_readers import lead_in_relation
from graphrag_core.text.sentences import sentence_spans


def is_lead_in(sentence: str) -> bool:
    """Does the sentence open a list of parties ("Our competitors include:", "…, including:")?"""
    return lead_in_relation(sentence) is not None or opens_list(sentence)


def _inside_a_list(paragraph: str) -> bool:
    return bool(
        cues.BULLET.match(paragraph)
        or cues.LABEL.match(paragraph)
        or cues.FOOTNOTE.match(paragraph)
    )


def _last_sentence(paragraph: str) -> str:
    spans = sentence_spans(paragraph)
    return paragraph[spans[-1][0] : spans[-1][1]].strip() if spans else paragraph


def open_at_end(text: str, carried: str | None) -> tuple[str | None, bool]:
    """(the lead-in whose list is open at the end of `text`, given `carried` open at its start;
    whether `text` ends on a sentence that introduces what follows, a table or a chart, with a
    colon: the list survives it only if a table comes next)."""
    paragraphs = [p.strip() for p in text.split("\n") if p.strip()]
    for k in range(len(paragraphs) - 1, -1, -1):
        paragraph = paragraphs[k]
        if _inside_a_list(paragraph):
            continue
        last = _last_sentence(paragraph)
        if is_lead_in(last):
            return last, False
        if k == len(paragraphs) - 1 and last.endswith(":"):
            # "The following chart compares …:" at the very end: whatever list was open before
            # it is still open if the next chunk is the chart
            return open_at_end("\n".join(paragraphs[:k]), carried)[0], True
        return None, False
    return carried, False


def lead_ins(chunks: pl.DataFrame) -> dict[str, str]:
    """chunk id → the lead-in whose list is open where the chunk starts, for the chunks that
    have one and do not hold it themselves. `chunks`: a filing's section_chunks (a table chunk
    inside a list keeps it open; a chunk missing between two, as when only the narrative chunks
    are given, is taken for such a table)."""
    needed = {"chunk_id", "filing_id", "section", "ordinal", "kind", "text"}
    if not needed <= set(chunks.columns):
        return {}
    ordered = chunks.select(sorted(needed)).sort("filing_id", "section", "ordinal")
    out: dict[str, str] = {}
    state: dict[tuple[str, str], tuple[str | None, int, bool]] = {}
    for row in ordered.iter_rows(named=True):
        key = (row["filing_id"], row["section"])
        carried, last_ordinal, before_a_table = state.get(key, (None, row["ordinal"] - 1, False))
        between = row["kind"] == "table" or row["ordinal"] > last_ordinal + 1
        if before_a_table and not between:
            carried = None
        if row["kind"] == "table":
            state[key] = (carried, row["ordinal"], False)
            continue
        if carried and carried not in row["text"]:
            out[row["chunk_id"]] = carried
        carried, before_a_table = open_at_end(row["text"], carried)
        state[key] = (carried, row["ordinal"], before_a_table)
    return out
