"""Company names: the one normalizer that every stage and the MCP server use.

Whoever builds a key (the snapshot's alias table, the extractor's gazetteer, entity
resolution) and whoever looks one up (a user's query) must normalize identically, or an exact
match silently becomes a miss. Legal forms, state-of-incorporation tags and the words SEC
titles carry but texts drop are removed; words that distinguish companies ("Holdings" in the
middle, "Group", "Financial", "Hospitality") are kept.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

LEGAL_FORMS = frozenset(
    "inc incorporated corp corporation co company ltd limited plc llc lp llp l.p l.l.c nv n.v "
    "sa s.a ag se gmbh spa s.p.a bv b.v kk ab asa oyj pte pty sas s.a.s lda sarl".split()
)
# Trailing words SEC titles carry that texts drop ("AMAZON COM INC" → Amazon, "Alibaba Group
# Holding Ltd" → Alibaba Group), and the "&" / "and" a dropped "& Co." leaves behind.
_DROPPABLE_TAIL = frozenset({"com", "holding", "the", "and", "&"})
# EDGAR conformed names carry a state of incorporation: "NVIDIA CORP/CA", "APPLE INC /DE/".
_STATE_TAG_RE = re.compile(r"\s*[/\\][A-Z]{2,3}[/\\]?\s*$|\s*/NEW/?\s*$", re.I)
# A name token: a word with its inner punctuation ("Coca-Cola", "Amazon.com", "AT&T"), or "&".
NAME_TOKEN_RE = re.compile(r"[^\W_][\w&.'’\-]*|&")
_NON_ALNUM_RE = re.compile(r"[^a-z0-9]+")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def ascii_fold(text: str) -> str:
    """Lower case without accents: 'Nestlé' → 'nestle'."""
    decomposed = unicodedata.normalize("NFKD", text.replace("’", "'"))
    return decomposed.encode("ascii", "ignore").decode("ascii").lower()


def name_token(token: str) -> str:
    """One token as it counts in a name key: 'Macy’s' → 'macy', 'Amazon.com' → 'amazon',
    'Inc.' → 'inc'."""
    token = ascii_fold(token)
    if token.endswith("'s"):
        token = token[:-2]
    if token.endswith(".com"):
        token = token[:-4]
    return token.strip(".,'")


def strip_name_tail(tokens: Sequence[str]) -> tuple[str, ...]:
    """Drop trailing legal forms and droppable words, and a leading 'the'."""
    out = list(tokens)
    while out and (out[-1] in LEGAL_FORMS or out[-1] in _DROPPABLE_TAIL):
        out.pop()
    while out and out[0] == "the":
        out.pop(0)
    return tuple(out)


def is_legal_form(token: str) -> bool:
    return name_token(token) in LEGAL_FORMS


def name_key(name: str) -> tuple[str, ...]:
    """The tokens that identify a company name: 'MICRON TECHNOLOGY INC' and 'Micron Technology,
    Inc.' → ('micron', 'technology'); 'NVIDIA CORP/CA' → ('nvidia',)."""
    name = _STATE_TAG_RE.sub("", name)
    tokens = [name_token(t) for t in NAME_TOKEN_RE.findall(name)]
    return strip_name_tail([t for t in tokens if t])


def normalize_name(text: str) -> str:
    """The name key as plain words: 'The Coca-Cola Company' → 'coca cola'; 'JPMorgan Chase &
    Co.' → 'jpmorgan chase'; 'AT&T Inc.' → 'at and t'; '' stays ''."""
    words: list[str] = []
    for token in name_key(text):
        words.extend(_NON_ALNUM_RE.sub(" ", token.replace("&", " and ")).split())
    return " ".join(words)


def compact_name(text: str) -> str:
    """The normalized name without spaces, so 'Coca Cola' meets 'CocaCola' and 'You Tube'."""
    return normalize_name(text).replace(" ", "")


def member_label(qname: str) -> str | None:
    """An XBRL member QName → the words it names: 'goog:GoogleCloudMember' → 'Google Cloud'."""
    local = qname.rsplit(":", 1)[-1]
    if local.endswith("Member"):
        local = local[: -len("Member")]
    if local.endswith("Segment"):
        local = local[: -len("Segment")]
    words = _CAMEL_RE.sub(" ", local).strip()
    return words or None
