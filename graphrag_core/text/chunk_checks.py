"""The text stage's quality checks on one filing's chunks."""

from __future__ import annotations

import polars as pl

from graphrag_core.common.checks import CheckVerdict
from graphrag_core.text.sections import form_family

REQUIRED_ITEMS: dict[str, tuple[str, ...]] = {
    "10-K": ("10-K/Item 1", "10-K/Item 1A", "10-K/Item 7"),
    "10-Q": ("10-Q/Part I/Item 2",),
}


def spans_match_text(chunks: pl.DataFrame, text: str) -> CheckVerdict:
    """Blocking: every prose, turn and Q&A chunk equals its span of the filing's saved text, so
    every quote cited from it can be found again. (A table's continuation parts repeat its
    header rows, so tables are not compared.)"""
    contiguous = chunks.filter(pl.col("kind") != "table")
    mismatched = [
        r["chunk_id"]
        for r in contiguous.select("chunk_id", "text", "char_start", "char_end").iter_rows(named=True)
        if text[r["char_start"] : r["char_end"]] != r["text"]
    ]
    return CheckVerdict(
        asset="section_chunks",
        check="spans_match_text",
        passed=not mismatched,
        blocking=True,
        figures={"checked": contiguous.height, "mismatched": len(mismatched), "first": mismatched[:5]},
    )


def required_items_found(sections: dict[str, int], form: str) -> CheckVerdict:
    """Warning only: a 10-K without Items 1, 1A and 7, or a 10-Q without Part I Item 2, was
    probably cut wrong (or incorporates them by reference)."""
    required = REQUIRED_ITEMS.get(form_family(form), ())
    missing = [s for s in required if s not in sections]
    return CheckVerdict(
        asset="section_chunks",
        check="required_items_found",
        passed=not missing,
        blocking=False,
        figures={"missing": missing, "form": form},
    )
