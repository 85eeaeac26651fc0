"""Query expansion for the full-text search: an analyst's word → the words filings use for it.

A question is worded the way people talk ("how much did X spend", "profit", "buyback",
"overhead"); the answering passage or table row is worded the way filings are ("expense",
"income", "repurchase", "general and administrative"). BM25 only meets words it is given, so
each query word in this table also brings its filing counterparts into the full-text query
(as more OR terms: a passage with the analyst's own word still scores). The vector search
needs no help here; the table is for the words search meets.

The table is small on purpose and holds only general financial-reporting vocabulary, never a
company's own terms: chosen on the dev questions (bench/retrieval.py --splits), it lifted the
paraphrased part's hit@8 by 0.06 (0.83 → 0.89, with table routing) and the held-out part's by
0.07 (0.81 → 0.88), and left the first part unchanged (docs/design-notes.md, "Issue 24:
retrieval that generalizes").
"""

from __future__ import annotations

from collections.abc import Sequence

# Keys and values are lower case, as text_terms produces them (not stemmed: the index stems
# both the query and the text the same way).
SYNONYMS: dict[str, tuple[str, ...]] = {
    "revenue": ("sales",),
    "revenues": ("sales",),
    "sales": ("revenue",),
    "profit": ("income", "earnings"),
    "profits": ("income", "earnings"),
    "earn": ("income",),
    "earned": ("income",),
    "buyback": ("repurchase",),
    "buybacks": ("repurchases",),
    "buy": ("repurchase", "purchase"),
    "bought": ("acquired", "repurchased"),
    "borrowing": ("debt", "indebtedness"),
    "borrowings": ("debt",),
    "debt": ("borrowings", "notes"),
    "repay": ("repayments",),
    "repaid": ("repayments",),
    "spend": ("expense", "expenditures"),
    "spent": ("expense", "expenditures"),
    "spending": ("expense", "expenditures"),
    "overhead": ("administrative",),
    "tax": ("taxes",),
    "lawsuit": ("litigation",),
    "lawsuits": ("litigation",),
    "sued": ("litigation",),
    "workers": ("employees",),
    "staff": ("employees",),
    "workforce": ("employees",),
    "factory": ("manufacturing", "facility"),
    "plant": ("facility",),
    "chips": ("semiconductors",),
    "rivals": ("competitors", "competition"),
    "suppliers": ("supply", "vendors"),
    "stake": ("interest", "investment"),
    "stakes": ("investments",),
    "hack": ("cybersecurity",),
    "hacking": ("cybersecurity", "cyberattack"),
    "prepaid": ("deposits", "advances"),
    "generate": ("provided",),
    "generated": ("provided",),
    "acquire": ("acquisition",),
    "lose": ("loss",),
    "lost": ("loss",),
    "ceo": ("chief", "executive"),
    "cfo": ("chief", "financial"),
}


def expand_terms(terms: Sequence[str]) -> list[str]:
    """The terms followed by their filing counterparts, each word once, in order."""
    extra = [alt for term in terms for alt in SYNONYMS.get(term, ())]
    return list(dict.fromkeys([*terms, *extra]))
