"""Is an entity named in a quote? The entity-grounding gate and the clause finder both ask.

An entity is named when the quote writes its name (legal suffixes aside: "Micron Technology"
names "Micron Technology, Inc."), the first words of it ("Samsung" for "Samsung Electronics Co.,
Ltd."), an alias the chunk defines for it ("Taiwan Semiconductor Manufacturing Company Limited,
or TSMC"; `Hon Hai (“Foxconn”)`), or its initials ("AHP" for American Home Products). The filer
is named by "we", "our", "the Company" and the like, by its name, its ticker, or the first word
of its name ("NIKE", "Mastercard"). A designated placeholder ("Customer A") is named by itself or
inside "Customers A, B and C".

Names are compared through `graphrag_core.common.names` (`name_token`, `name_key`), the one
normalizer every stage uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from graphrag_core.common.names import NAME_TOKEN_RE, compact_name, name_key, name_token
from graphrag_core.tables.records import FilingMeta

Span = tuple[int, int]

# First words that do not name a company on their own ("General" of General Dynamics).
GENERIC_FIRST_WORDS = frozenset(
    "global international united american general national first new the digital advanced "
    "applied universal standard royal china japan korea taiwan india british north south east "
    "west central pacific atlantic western eastern northern southern premier capital great "
    "home health bank energy".split()
)
FILER_PRONOUNS = re.compile(
    r"\b(?:we|our|ours|us)\b|\bthe\s+(?:company|corporation|registrant|partnership|bank|parent|"
    r"group|firm|issuer)\b",
    re.I,
)
_PLACEHOLDER = re.compile(
    r"^(?P<kind>(?:direct\s+|indirect\s+)?(?:customer|supplier|distributor|partner|client|vendor|licensee|reseller))\s+(?P<id>[A-Z]|\d{1,2})$",
    re.I,
)
_SCOPE = re.compile(r"^(?P<name>.+?)\s+\((?:of\s+)?(?P<scope>[^()]+)\)$")
_ALIAS_AFTER = re.compile(
    r"""(?:,?\s+or\s+(?:the\s+)?[“"]?(?P<a>[A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,2})[”"]?(?=[,;.:)]|\s|$)"""
    r"""|\s*\((?:the\s+|collectively,?\s+)?[“"]?(?P<b>[A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,3})[”"]?\))"""
)


@dataclass(frozen=True)
class Token:
    key: str  # name_token form
    start: int
    end: int
    text: str


def tokens(text: str) -> list[Token]:
    out = []
    for m in NAME_TOKEN_RE.finditer(text):
        raw = m.group().rstrip(".,")
        if not raw:
            continue
        out.append(Token(name_token(raw), m.start(), m.start() + len(raw), raw))
    return out


def _find_key(toks: list[Token], key: tuple[str, ...], *, capitalized: bool = False) -> list[Span]:
    n = len(key)
    spans = []
    for i in range(len(toks) - n + 1):
        if all(toks[i + k].key == key[k] for k in range(n)):
            if capitalized and not toks[i].text[:1].isupper():
                continue
            spans.append((toks[i].start, toks[i + n - 1].end))
    return spans


def split_scope(name: str) -> tuple[str, str | None]:
    """'Customer A (NVIDIA CORP)' → ('Customer A', 'NVIDIA CORP'); other names unchanged."""
    m = _SCOPE.match(name.strip())
    if m and _PLACEHOLDER.match(m.group("name")):
        return m.group("name"), m.group("scope")
    return name.strip(), None


def is_placeholder(name: str) -> bool:
    """A designated, unnamed party: 'Customer A', 'Direct Customer B', 'Supplier 2'."""
    return _PLACEHOLDER.match(split_scope(name)[0]) is not None


def scoped_placeholder(name: str, filer: str) -> str:
    """A placeholder named per filer ('Customer A (NVIDIA CORP)'): NVIDIA's Customer A is not
    Apple's."""
    base, scope = split_scope(name)
    return name if scope else f"{base} ({filer})"


def _placeholder_spans(name: str, text: str) -> list[Span]:
    m = _PLACEHOLDER.match(name)
    if m is None:
        return []
    kind = re.escape(m.group("kind").split()[-1].rstrip("s"))
    ident = re.escape(m.group("id"))
    pattern = re.compile(
        rf"\b{kind}s?\s+(?:[A-Z0-9]{{1,2}}(?:\s*,\s*|\s+(?:and|or)\s+|,\s+and\s+))*{ident}\b", re.I
    )
    return [(x.start(), x.end()) for x in pattern.finditer(text)]


def defined_aliases(text: str) -> dict[str, str]:
    """Aliases a chunk defines, both ways: {'TSMC': 'Taiwan Semiconductor …', …}.

    "X, or ALIAS" and `X (“ALIAS”)` / "X (ALIAS)" after a capitalized name that ends in a legal
    form or is at least two words."""
    aliases: dict[str, str] = {}
    for m in re.finditer(r"(?:,\s+or\s+(?:the\s+)?|\s*\()", text):
        alias = _ALIAS_AFTER.match(text, m.start())
        if alias is None:
            continue
        word = alias.group("a") or alias.group("b")
        if not word or word.lower() in {"the", "we", "our", "us"}:
            continue
        # The full name: the capitalized run (with inner legal suffixes) right before.
        head = text[max(0, m.start() - 160) : m.start()]
        full = re.search(
            r"((?:[A-Z][\w&.\-’']*|&|of|de|and)(?:,?\s+(?:[A-Z][\w&.\-’']*|&|of|de|and))*(?:,?\s+(?:Inc|Corp|Co|Ltd|LLC|plc|N\.V|S\.A|AG|SE|GmbH)\.?)*)$",
            head,
        )
        if not full:
            continue
        name = full.group(1).strip(" ,")
        if len(name_key(name)) >= 1 and name.lower() != word.lower():
            aliases.setdefault(word, name)
    return aliases


@dataclass(frozen=True)
class Filer:
    """Who "we" are: the filer's name, ticker and CIK."""

    name: str
    cik: str | None = None
    ticker: str | None = None

    @classmethod
    def of(cls, meta: FilingMeta) -> Filer:
        return cls(meta.display_name, meta.cik, meta.ticker)

    @cached_property
    def key(self) -> tuple[str, ...]:
        return name_key(self.name)

    @cached_property
    def compact(self) -> str:
        return compact_name(self.name)

    def is_self(self, name: str) -> bool:
        """Does `name` stand for the filer ('NVIDIA' for 'NVIDIA CORP', 'we', 'the Company')?"""
        name = name.strip()
        if not name:
            return False
        if FILER_PRONOUNS.fullmatch(name):
            return True
        if self.ticker and name == self.ticker:
            return True
        key = name_key(name)
        if not key:
            return False
        if key == self.key or (compact_name(name) and compact_name(name) == self.compact):
            return True
        # 'NIKE' for 'NIKE, Inc.', 'Home Depot' for 'The Home Depot, Inc.': a short leading part
        # (a longer one is another company: 'Commonwealth Income & Growth Fund, Inc.' is the
        # general partner of 'Commonwealth Income & Growth Fund V').
        return (
            len(key) <= 2
            and len(key) < len(self.key)
            and self.key[: len(key)] == key
            and key[0] not in GENERIC_FIRST_WORDS
        )

    def spans(self, text: str) -> list[Span]:
        """Where `text` refers to the filer."""
        out = [(m.start(), m.end()) for m in FILER_PRONOUNS.finditer(text)]
        toks = tokens(text)
        if self.key:
            out += _find_key(toks, self.key)
            first = self.key[0]
            if len(self.key) > 1 and first not in GENERIC_FIRST_WORDS and len(first) >= 3:
                out += _find_key(toks, (first,), capitalized=True)
        if self.ticker:
            out += [
                (m.start(), m.end())
                for m in re.finditer(rf"(?<![\w&]){re.escape(self.ticker)}(?![\w&])", text)
            ]
        if self.compact and len(self.compact) >= 5:
            out += [
                (t.start, t.end)
                for t in toks
                if t.key.replace("-", "").replace("&", "and") == self.compact
            ]
        return sorted(set(out))


def entity_spans(name: str, text: str, chunk_text: str | None = None) -> list[Span]:
    """Where `text` names the entity `name` (see the module docstring); [] when it does not."""
    base, _ = split_scope(name)
    if is_placeholder(base):
        return _placeholder_spans(base, text)
    # "Alphabet (Google)": a name written with its alias.
    paren = re.match(r"^(?P<n>[^()]+?)\s*\((?P<a>[^()]+)\)$", base)
    names = [paren.group("n"), paren.group("a")] if paren else [base]
    aliases = defined_aliases(chunk_text) if chunk_text else {}
    for n in list(names):
        for alias, full in aliases.items():
            if name_key(full) == name_key(n) or (
                name_key(full)[: len(name_key(n))] == name_key(n) and name_key(n)
            ):
                names.append(alias)
            if alias == n:
                names.append(full)
    toks = tokens(text)
    spans: list[Span] = []
    for n in names:
        key = name_key(n)
        if not key:
            continue
        found = _find_key(toks, key)
        if not found and len(key) > 1:
            # The first words of a longer name, capitalized ("Samsung" for Samsung Electronics).
            for k in range(len(key) - 1, 0, -1):
                if k == 1 and (key[0] in GENERIC_FIRST_WORDS or len(key[0]) < 3):
                    break
                found = _find_key(toks, key[:k], capitalized=True)
                if found:
                    break
        if not found and len(key) > 1:
            initials = "".join(t[0] for t in key if t and t[0].isalnum()).upper()
            if len(initials) >= 2:
                found = [(t.start, t.end) for t in toks if t.text == initials]
        if not found and n.isupper() and len(n) <= 6:
            found = [
                (m.start(), m.end())
                for m in re.finditer(rf"(?<![\w&]){re.escape(n)}(?![\w&])", text)
            ]
        spans += found
    return sorted(set(spans))
