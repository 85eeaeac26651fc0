"""The search terms of the global search: lower-cased, lightly stemmed words, stopwords dropped.

One tokenizer for both sides, so they meet: community reports are indexed with it when the
snapshot is built (`store.community_index`), questions and sector words are read with it when
they are asked (`retrieval.global_search`, `common.sectors`).
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    """a about across all also an and any are as at be been by can could do does for from had has
    have how in into is it its may might most not of on or other our over such than that the their
    them these they this those through to under was we were what when where which while who whom
    why will with within would you your among between each every more much many main major key
    top dominant theme themes risk risks company companies quarter year this these""".split()
)
# Words a question uses for kinds of findings rather than for their content.
_IRREGULAR = {"companies": "company", "industries": "industry", "subsidiaries": "subsidiary"}


def stem(word: str) -> str:
    """A light plural strip, the same for questions and reports: 'semiconductors' →
    'semiconductor', 'controls' → 'control', 'tariffs' → 'tariff', 'supplies' → 'supply'."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def search_terms(text: str | None, *, keep_stopwords: bool = False) -> list[str]:
    """Lower-cased, stemmed words of `text`, stopwords dropped (kept with `keep_stopwords`)."""
    if not text:
        return []
    words = _WORD.findall(text.lower())
    return [stem(w) for w in words if keep_stopwords or (w not in STOPWORDS and len(w) > 1)]
