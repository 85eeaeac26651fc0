"""Damaged inline XBRL: prefixes used but never declared, bound to their well-known namespaces.

A copy of a filing re-serialised by a tool that dropped namespace declarations (the corpus has
one: an Apple 10-Q that uses `dei:`, `srt:`, `iso4217:`, `ixt:`, `ixt-sec:` without declaring
them) still names every standard prefix the way EDGAR does: `dei:` is always SEC's dei
taxonomy, `iso4217:` always the currency codes. Before such a document is parsed, each
undeclared *standard* prefix is declared on its root element, so arelle resolves its facts,
units and formats. A prefix that is not standard (`aapl:`, a company's own taxonomy) has no
namespace anyone can know offline: its facts stay out and are counted.

Versioned taxonomies (`us-gaap`, `srt`, `dei`, ...) get the year of a version the document
itself declares, else `DEFAULT_TAXONOMY_YEAR`; offline, only the prefix and local name of a
concept matter (no taxonomy is loaded), so the year is recorded, never relied on. The `ixt:`
transformation registry is chosen as the first one (in the order SEC accepts them) that
implements every format the document uses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

DEFAULT_TAXONOMY_YEAR = 2024

# Fixed namespaces: what EDGAR filings (and XBRL itself) mean by these prefixes.
FIXED_NAMESPACES: dict[str, str] = {
    "xbrli": "http://www.xbrl.org/2003/instance",
    "link": "http://www.xbrl.org/2003/linkbase",
    "xlink": "http://www.w3.org/1999/xlink",
    "xsi": "http://www.w3.org/2001/XMLSchema-instance",
    "xbrldi": "http://xbrl.org/2006/xbrldi",
    "xbrldt": "http://xbrl.org/2005/xbrldt",
    "ix": "http://www.xbrl.org/2013/inlineXBRL",
    "ixt-sec": "http://www.sec.gov/inlineXBRL/transformation/2015-08-31",
    "iso4217": "http://www.xbrl.org/2003/iso4217",
    "utr": "http://www.xbrl.org/2009/utr",
    "num": "http://www.xbrl.org/dtr/type/numeric",
    "nonnum": "http://www.xbrl.org/dtr/type/non-numeric",
    "dtr-types": "http://www.xbrl.org/dtr/type/2020-01-21",
}

# Yearly taxonomies: prefix → namespace with `{year}` in it.
YEARLY_NAMESPACES: dict[str, str] = {
    "us-gaap": "http://fasb.org/us-gaap/{year}",
    "srt": "http://fasb.org/srt/{year}",
    "dei": "http://xbrl.sec.gov/dei/{year}",
    "ecd": "http://xbrl.sec.gov/ecd/{year}",
    "cyd": "http://xbrl.sec.gov/cyd/{year}",
    "country": "http://xbrl.sec.gov/country/{year}",
    "currency": "http://xbrl.sec.gov/currency/{year}",
    "exch": "http://xbrl.sec.gov/exch/{year}",
    "naics": "http://xbrl.sec.gov/naics/{year}",
    "sic": "http://xbrl.sec.gov/sic/{year}",
    "stpr": "http://xbrl.sec.gov/stpr/{year}",
    "ffd": "http://xbrl.sec.gov/ffd/{year}",
    "spac": "http://xbrl.sec.gov/spac/{year}",
    "rxp": "http://xbrl.sec.gov/rxp/{year}",
    "vip": "http://xbrl.sec.gov/vip/{year}",
    "snj": "http://xbrl.sec.gov/snj/{year}",
    "sro": "http://xbrl.sec.gov/sro/{year}",
}

# Inline transformation registries, in the order a damaged document's `ixt:` is tried: SEC's
# current registry (TR4) first, then TR3, TR5, and the retired ones.
IXT_REGISTRIES: tuple[str, ...] = (
    "http://www.xbrl.org/inlineXBRL/transformation/2020-02-12",
    "http://www.xbrl.org/inlineXBRL/transformation/2015-02-26",
    "http://www.xbrl.org/inlineXBRL/transformation/2022-02-16",
    "http://www.xbrl.org/inlineXBRL/transformation/2011-07-31",
    "http://www.xbrl.org/inlineXBRL/transformation/2010-04-20",
)

STANDARD_PREFIXES = frozenset({*FIXED_NAMESPACES, *YEARLY_NAMESPACES, "ixt"})

_NAME = r"[A-Za-z_][\w.-]*"
# Patterns start with a literal character where they can: a leading `\b` or class makes
# Python's regex engine try every position, which costs ~70 ms on a 4 MB 10-K.
_DECLARED_RE = re.compile(r"xmlns:([\w.-]+)\s*=\s*[\"']([^\"']*)[\"']")
_TAG_PREFIX_RE = re.compile(rf"</?({_NAME}):")
# QNames as attribute values (fact names, formats, axes) and as element text (unit measures,
# explicit members), which XBRL resolves against the in-scope declarations.
_QNAME_VALUE_RES = tuple(
    re.compile(rf"{lead}\s*({_NAME}):")
    for lead in (
        r"name=[\"']",
        r"format=[\"']",
        r"dimension=[\"']",
        r"measure>",
        r"explicitMember[^>]*>",
    )
)
# Prefixed attribute names an inline document uses (link:schemaRef's xlink:, xsi:).
_ATTRIBUTE_PREFIXES = ("xlink", "xsi")
_IXT_FORMAT_RE = re.compile(r"format=[\"']\s*ixt:([\w.-]+)")
_FACT_NAME_RE = re.compile(
    rf"<(?:{_NAME}:)?(?:nonFraction|nonNumeric|fraction)\b[^>]*?\bname\s*=\s*[\"']\s*({_NAME}):"
)
_YEAR_RE = re.compile(r"/((?:19|20)\d\d)(?:-\d\d-\d\d)?$")
_ROOT_RE = re.compile(r"<(?!\?|!)([A-Za-z_][\w.:-]*)")
_IMPLICIT = frozenset({"xml", "xmlns"})


@dataclass
class PrefixRepair:
    """What `bind_undeclared_prefixes` did to one document."""

    markup: str
    bound: dict[str, str] = field(default_factory=dict)  # prefix → namespace declared
    unbound: dict[str, int] = field(default_factory=dict)  # non-standard prefix → ix facts using it

    @property
    def changed(self) -> bool:
        return bool(self.bound)

    @property
    def unbound_facts(self) -> int:
        return sum(self.unbound.values())


def used_prefixes(markup: str) -> set[str]:
    """Every namespace prefix the document uses: in tag and attribute names, and in the QName
    values XBRL resolves against the in-scope declarations."""
    used: set[str] = set()
    for pattern in (_TAG_PREFIX_RE, *_QNAME_VALUE_RES):
        used.update(m.group(1) for m in pattern.finditer(markup))
    used.update(p for p in _ATTRIBUTE_PREFIXES if f" {p}:" in markup)
    return used - _IMPLICIT


def declared_namespaces(markup: str) -> dict[str, str]:
    """prefix → namespace of every `xmlns:` declaration in the document (first one wins)."""
    declared: dict[str, str] = {}
    for m in _DECLARED_RE.finditer(markup):
        declared.setdefault(m.group(1), m.group(2))
    return declared


def _taxonomy_year(declared: dict[str, str]) -> int:
    """The year of a yearly taxonomy the document declares (us-gaap first), else the default."""
    for prefix in YEARLY_NAMESPACES:
        ns = declared.get(prefix)
        if ns and (m := _YEAR_RE.search(ns)):
            return int(m.group(1))
    return DEFAULT_TAXONOMY_YEAR


def _ixt_registry(markup: str) -> str:
    """The first registry in `IXT_REGISTRIES` that implements every `ixt:` format used."""
    formats = {m.group(1) for m in _IXT_FORMAT_RE.finditer(markup)}
    try:
        from arelle import FunctionIxt
    except ImportError:  # pragma: no cover - arelle is a dependency of this stage
        return IXT_REGISTRIES[0]
    for namespace in IXT_REGISTRIES:
        if formats <= set(FunctionIxt.ixtNamespaceFunctions.get(namespace, {})):
            return namespace
    return IXT_REGISTRIES[0]


def well_known_namespace(prefix: str, markup: str, declared: dict[str, str]) -> str | None:
    """The namespace EDGAR means by a standard prefix; None for any other prefix."""
    if prefix in FIXED_NAMESPACES:
        return FIXED_NAMESPACES[prefix]
    if prefix in YEARLY_NAMESPACES:
        return YEARLY_NAMESPACES[prefix].format(year=_taxonomy_year(declared))
    if prefix == "ixt":
        return _ixt_registry(markup)
    return None


def bind_undeclared_prefixes(markup: str) -> PrefixRepair:
    """Declare every used-but-undeclared standard prefix on the document's root element.

    Returns the markup unchanged (`changed` false) when nothing is missing. Non-standard
    undeclared prefixes are left alone and reported with the number of ix facts named with
    them (arelle cannot read those facts, so they are a counted skip)."""
    declared = declared_namespaces(markup)
    missing = sorted(used_prefixes(markup) - set(declared))
    if not missing:
        return PrefixRepair(markup)
    bound: dict[str, str] = {}
    unbound: dict[str, int] = {}
    for prefix in missing:
        namespace = well_known_namespace(prefix, markup, declared)
        if namespace is None:
            unbound[prefix] = 0
        else:
            bound[prefix] = namespace
    if unbound:
        for m in _FACT_NAME_RE.finditer(markup):
            if m.group(1) in unbound:
                unbound[m.group(1)] += 1
    root = _ROOT_RE.search(markup)
    if not bound or root is None:
        return PrefixRepair(markup, {}, unbound)
    declarations = "".join(f' xmlns:{p}="{ns}"' for p, ns in bound.items())
    repaired = markup[: root.end()] + declarations + markup[root.end() :]
    return PrefixRepair(repaired, bound, unbound)
