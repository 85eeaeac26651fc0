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
# A share class or security named after the company: "Alphabet Inc. Class A", "Berkshire
# Hathaway Inc. Class B Common Stock", "Airbus SE ADR", "Acme Corp Series A Preferred".
_SHARE_CLASS_RE = re.compile(
    r"(?:[\s,]+(?:(?:class|series)\s+[a-z0-9]{1,2}\b|common\s+stock|capital\s+stock|"
    r"ordinary\s+shares|preferred(?:\s+stock)?|american\s+depositary\s+(?:shares|receipts)|"
    r"depositary\s+(?:shares|receipts)|adrs?|ads)\b\.?)+\s*$",
    re.I,
)
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
    Inc.' → ('micron', 'technology'); 'NVIDIA CORP/CA' → ('nvidia',); share classes go too:
    'Alphabet Inc. Class A' → ('alphabet',)."""
    name = _STATE_TAG_RE.sub("", name)
    name = _SHARE_CLASS_RE.sub("", name)
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


# Trailing words that a text may leave off a registrant's name when at least two words remain:
# "American Airlines" for "American Airlines Group Inc.", "Alibaba Group" for "Alibaba Group
# Holding Ltd". One word alone ("Star" of "Star Holdings") is too often just a word.
_SHORTENABLE_TAIL = frozenset({"group", "holdings", "holding"})


def name_variants(text: str) -> tuple[str, ...]:
    """The normalized name, then the forms a text may shorten it to: the trailing "Group" /
    "Holdings" dropped while two words remain. Distinguishing words are never dropped, so
    'Apple Hospitality REIT' never becomes 'apple' and 'American Airlines Group' never
    'american'."""
    norm = normalize_name(text)
    if not norm:
        return ()
    out = [norm]
    words = norm.split()
    while len(words) > 2 and words[-1] in _SHORTENABLE_TAIL:
        words = words[:-1]
        out.append(" ".join(words))
    return tuple(dict.fromkeys(out))


def has_legal_form(text: str) -> bool:
    """Does the name end in a legal form ('Samsung Electronics Co., Ltd.', 'Wistron
    Corporation')? Such a name is a company even when no register lists it."""
    name = _STATE_TAG_RE.sub("", _SHARE_CLASS_RE.sub("", _STATE_TAG_RE.sub("", text)))
    tokens = [name_token(t) for t in NAME_TOKEN_RE.findall(name)]
    tokens = [t for t in tokens if t]
    return len(tokens) >= 2 and tokens[-1] in LEGAL_FORMS


def name_slug(text: str) -> str:
    """The normalized name as a key part: 'Samsung Electronics Co., Ltd.' →
    'samsung-electronics'."""
    return normalize_name(text).replace(" ", "-")


def jaro_winkler(a: str, b: str, prefix_scale: float = 0.1) -> float:
    """Jaro-Winkler similarity of two strings, 0.0 (nothing shared) to 1.0 (equal), with the
    usual four-character prefix bonus: 'american airlines' vs 'american express' 0.87,
    'hon hai precision industries' vs '... industry' 0.97."""
    if a == b:
        return 1.0
    la, lb = len(a), len(b)
    if not la or not lb:
        return 0.0
    window = max(max(la, lb) // 2 - 1, 0)
    matched_a = [False] * la
    matched_b = [False] * lb
    matches = 0
    for i, ch in enumerate(a):
        for j in range(max(0, i - window), min(lb, i + window + 1)):
            if not matched_b[j] and b[j] == ch:
                matched_a[i] = matched_b[j] = True
                matches += 1
                break
    if not matches:
        return 0.0
    transpositions = 0
    j = 0
    for i in range(la):
        if matched_a[i]:
            while not matched_b[j]:
                j += 1
            if a[i] != b[j]:
                transpositions += 1
            j += 1
    m = float(matches)
    jaro = (m / la + m / lb + (m - transpositions / 2) / m) / 3
    prefix = 0
    for ca, cb in zip(a[:4], b[:4], strict=False):
        if ca != cb:
            break
        prefix += 1
    return jaro + prefix * prefix_scale * (1 - jaro)


# -- a name or a sentence ---------------------------------------------------------------------
# Words that make a clause, not a name: pronouns of the writer and reader, modals, the forms of
# "be", "have" and "do", negation. A risk heading ("Certain of our executives and directors own a
# majority of our outstanding capital stock, and therefore exercise voting control over the
# Company.") may end in a legal form, but an organisation's name never says "our" or "may".
_CLAUSE_WORDS = frozenset(
    """we our ours us you your they their them may might could would should will shall can cannot
    must is are was were be been being has have had do does did not""".split()
)
# Lower-case words a name may hold between its capitalised ones ("Bank of America", "Compañía
# Cervecera de Canarias", "Procter & Gamble").
_NAME_CONNECTORS = frozenset(
    "of and the for de del der des du la le les van von di da y e et on in at to".split()
)
_WORD_RE = re.compile(r"[^\W\d_][\w'’\-]*")
_MAX_NAME_WORDS = 12


def is_sentence(text: str) -> bool:
    """Is this a sentence (a heading that says something) rather than an organisation's name?
    'Samsung Electronics Co., Ltd.', 'Bank of America Corporation', 'adidas AG', 'Fully Will
    Limited' are names; 'Certain of our executives and directors own a majority of our
    outstanding capital stock, and therefore exercise voting control over the Company.' is not.
    A name is short, and its words are capitalised but for a few connectors (a brand written in
    lower case, like adidas, is one such word); a sentence has a clause word ("our", "may", "is")
    written in lower case, or two lower-case words other than connectors and legal forms
    ("conditions affect"), or is long. An all-capitals
    heading is judged by its clause words and length alone."""
    words = _WORD_RE.findall(text)
    if not words:
        return False
    if len(words) > _MAX_NAME_WORDS:
        return True
    letters = [w for w in words if len(w) > 1]
    shouting = bool(letters) and all(w.isupper() for w in letters)
    if shouting:
        return sum(w.lower() in _CLAUSE_WORDS for w in words) >= 1 and len(words) >= 4
    lower = [w for w in words if w.islower()]
    if any(w in _CLAUSE_WORDS for w in lower):
        return True
    if all(w.islower() for w in letters):  # a name styled in lower case ("bebe stores, inc.")
        return False
    return sum(w not in _NAME_CONNECTORS and name_token(w) not in LEGAL_FORMS for w in lower) >= 2


_SEARCH_WORD_RE = re.compile(r"[a-z0-9]+")


def search_words(text: str | None) -> list[str]:
    """Lower-case words of a text ('Google Cloud, Inc.' → ['google', 'cloud', 'inc']; an id's
    underscores split it: 'segment_revenue' → ['segment', 'revenue'])."""
    return _SEARCH_WORD_RE.findall((text or "").lower())


def query_words(text: str) -> list[str]:
    """The words a fact search matches as word prefixes (`graphrag_core.xbrl.segments`):
    plural 's' dropped from longer words, so 'revenues' finds 'Revenue' and 'revenue' finds
    'Revenues'."""
    out = [
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        for w in search_words(text)
    ]
    return list(dict.fromkeys(out))
