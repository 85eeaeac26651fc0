"""Company-name normalization, shared by the builder (alias keys) and queries (the user's text).

Both sides must normalize identically or an exact match silently becomes a miss, which is why
this lives in one small module that `reader` re-exports for the MCP server.
"""

from __future__ import annotations

import re
import unicodedata

# Legal-form words dropped from the end of a name: "NVIDIA CORP" and "Nvidia Corporation" are
# one company to a person typing a query. Words that distinguish companies ("Holdings",
# "Group", "Financial") are kept.
_LEGAL_FORMS = frozenset(
    {
        "inc", "incorporated", "corp", "corporation", "co", "company", "ltd", "limited", "plc",
        "llc", "lp", "llp", "sa", "nv", "ag", "se", "the",
    }
)
# EDGAR conformed names carry a state of incorporation: "NVIDIA CORP/CA", "APPLE INC /DE/".
_STATE_SUFFIX_RE = re.compile(r"\s*/[a-z]{2}/?\s*$")
_NON_ALNUM_RE = re.compile(r"[^a-z0-9]+")
_CAMEL_RE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _ascii_lower(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return decomposed.encode("ascii", "ignore").decode("ascii").lower()


def normalize_name(text: str) -> str:
    """'The Coca-Cola Company' → 'coca cola'; 'NVIDIA CORP/CA' → 'nvidia'; '' stays ''."""
    lowered = _STATE_SUFFIX_RE.sub("", _ascii_lower(text).strip())
    lowered = lowered.replace("&", " and ")
    words = _NON_ALNUM_RE.sub(" ", lowered).split()
    # "JPMorgan Chase & Co." → drop "co", then the dangling "and" it leaves.
    while words and (words[-1] in _LEGAL_FORMS or words[-1] == "and"):
        words.pop()
    while words and words[0] == "the":
        words.pop(0)
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
