"""Sectors on SEC's SIC codes, one vocabulary at two grains, and the one resolver of a `sector`
argument that every MCP tool uses.

SEC assigns every registrant a four-digit Standard Industrial Classification code (the
`companies.sic` column, with SEC's description). Analysts name sectors two ways, and a tool
accepts both alike:

- **sectors**: eleven plain names modelled on the GICS sectors ("Information Technology",
  "Health Care"), plus "Other"; every SIC code falls in exactly one, by the table below
  (`sector_of_sic`; the snapshot's `sic_sectors` and `company_sectors` tables);
- **industries**: finer groups a question names ("semiconductors", "banks", "software"), each a
  set of SIC ranges with the words a question may use for it (`INDUSTRIES`); they overlap
  (semiconductors are also electronic equipment) and cover only some codes.

`resolve_sector(text, known)` reads a `sector` argument against the snapshot's codes (`known`:
SIC code and SEC description pairs) and returns the codes it names, so every tool filters on SIC
codes: a SIC code itself ("3674"); a sector or one of its words ("Information Technology",
"tech"); an industry or one of its words ("semiconductors", "chip makers"); else every code whose
SEC description holds all of the text's words ("commercial banks"). Words are compared as the
global search reads questions (`common.search_terms`: lower case, plurals stripped).

The sector mapping is by SIC range, the narrowest range containing the code winning; it is
SIC-based, so it follows SEC's classification, not an index provider's: Alphabet and Meta (SIC
7370, computer services) are "Information Technology" here, not "Communication Services" as GICS
has them since 2018.

| SIC codes | sector |
|---|---|
| 0100–0999 | Consumer Staples (agriculture) |
| 1000–1299, 1400–1499 | Materials (metal and mineral mining) |
| 1300–1399, 2900–2999 | Energy (oil and gas extraction, refining) |
| 1500–1799 | Industrials (construction) |
| 2000–2199, 2840–2844, 5400–5499, 5912 | Consumer Staples (food, beverages, tobacco, household products, grocers, drug stores) |
| 2200–2399, 2500–2599, 3100–3199, 3630–3639, 3700–3716, 3750–3799, 3940–3949, 5200–5999 (rest), 7000–7299, 8200–8299 | Consumer Discretionary |
| 2400–2499, 2600–2699, 2800–2899 (rest), 3000–3099, 3200–3399 | Materials |
| 2700–2799, 4800–4899, 7800–7999 | Communication Services |
| 2830–2836, 3840–3851, 5120–5129, 6324, 8000–8099 | Health Care (6324: health insurers) |
| 3400–3599 (rest), 3720–3749, 3800–3829 (rest), 3812, 4000–4799, 5000–5199 (rest), 7300–7399 (rest), 8700–8799 | Industrials |
| 3570–3579, 3600–3699 (rest), 3820–3829, 7370–7379 | Information Technology |
| 4900–4999 | Utilities |
| 6000–6499, 6700–6797, 6799 | Financials |
| 6500–6599, 6798 | Real Estate |
| anything else (9100–9999: public administration, non-classifiable) | Other |
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from graphrag_core.common.numbers import to_int
from graphrag_core.common.search_terms import search_terms

CONSUMER_DISCRETIONARY = "Consumer Discretionary"
CONSUMER_STAPLES = "Consumer Staples"
COMMUNICATION = "Communication Services"
ENERGY = "Energy"
FINANCIALS = "Financials"
HEALTH_CARE = "Health Care"
INDUSTRIALS = "Industrials"
TECHNOLOGY = "Information Technology"
MATERIALS = "Materials"
REAL_ESTATE = "Real Estate"
UTILITIES = "Utilities"
OTHER = "Other"

SECTORS: tuple[str, ...] = (
    COMMUNICATION,
    CONSUMER_DISCRETIONARY,
    CONSUMER_STAPLES,
    ENERGY,
    FINANCIALS,
    HEALTH_CARE,
    INDUSTRIALS,
    TECHNOLOGY,
    MATERIALS,
    REAL_ESTATE,
    UTILITIES,
    OTHER,
)

# (first SIC, last SIC, sector); where ranges nest, the narrowest one containing a code wins.
SIC_RANGES: tuple[tuple[int, int, str], ...] = (
    (100, 999, CONSUMER_STAPLES),
    (1000, 1499, MATERIALS),
    (1300, 1399, ENERGY),
    (1500, 1799, INDUSTRIALS),
    (2000, 2199, CONSUMER_STAPLES),
    (2200, 2399, CONSUMER_DISCRETIONARY),
    (2400, 2499, MATERIALS),
    (2500, 2599, CONSUMER_DISCRETIONARY),
    (2600, 2699, MATERIALS),
    (2700, 2799, COMMUNICATION),
    (2800, 2899, MATERIALS),
    (2830, 2836, HEALTH_CARE),
    (2840, 2844, CONSUMER_STAPLES),
    (2900, 2999, ENERGY),
    (3000, 3099, MATERIALS),
    (3100, 3199, CONSUMER_DISCRETIONARY),
    (3200, 3399, MATERIALS),
    (3400, 3599, INDUSTRIALS),
    (3570, 3579, TECHNOLOGY),
    (3600, 3699, TECHNOLOGY),
    (3630, 3639, CONSUMER_DISCRETIONARY),
    (3700, 3799, CONSUMER_DISCRETIONARY),
    (3720, 3749, INDUSTRIALS),
    (3800, 3899, INDUSTRIALS),
    (3820, 3829, TECHNOLOGY),
    (3812, 3812, INDUSTRIALS),
    (3840, 3851, HEALTH_CARE),
    (3940, 3949, CONSUMER_DISCRETIONARY),
    (4000, 4799, INDUSTRIALS),
    (4800, 4899, COMMUNICATION),
    (4900, 4999, UTILITIES),
    (5000, 5199, INDUSTRIALS),
    (5120, 5129, HEALTH_CARE),
    (5200, 5999, CONSUMER_DISCRETIONARY),
    (5400, 5499, CONSUMER_STAPLES),
    (5912, 5912, CONSUMER_STAPLES),
    (6000, 6499, FINANCIALS),
    (6324, 6324, HEALTH_CARE),  # hospital and medical service plans (UnitedHealth)
    (6500, 6599, REAL_ESTATE),
    (6700, 6799, FINANCIALS),
    (6798, 6798, REAL_ESTATE),
    (7000, 7299, CONSUMER_DISCRETIONARY),
    (7300, 7399, INDUSTRIALS),
    (7370, 7379, TECHNOLOGY),
    (7800, 7999, COMMUNICATION),
    (8000, 8099, HEALTH_CARE),
    (8200, 8299, CONSUMER_DISCRETIONARY),
    (8700, 8799, INDUSTRIALS),
)


def sector_of_sic(sic: object) -> str | None:
    """'3674' → 'Information Technology'; None when there is no SIC code; 'Other' for a code no
    range covers."""
    code = to_int(sic)
    if code is None:
        return None
    best: tuple[int, str] | None = None
    for lo, hi, sector in SIC_RANGES:
        if lo <= code <= hi and (best is None or hi - lo < best[0]):
            best = (hi - lo, sector)
    return best[1] if best else OTHER


# The words a question may use for a sector besides its name.
SECTOR_WORDS: dict[str, tuple[str, ...]] = {
    TECHNOLOGY: ("tech", "technology", "it"),
    HEALTH_CARE: ("healthcare", "health"),
    FINANCIALS: ("financial", "finance", "financial services"),
    COMMUNICATION: ("communication", "communications"),
    CONSUMER_STAPLES: ("staples",),
    CONSUMER_DISCRETIONARY: ("discretionary",),
    REAL_ESTATE: ("reits", "property"),
    INDUSTRIALS: ("industrial",),
    UTILITIES: ("utility", "electric utilities", "power"),
    MATERIALS: ("material",),
    ENERGY: ("oil and gas", "oil", "petroleum"),
}


@dataclass(frozen=True)
class Industry:
    """A finer group than a sector: SIC ranges, and the words a question may use for it."""

    name: str
    sic_ranges: tuple[tuple[int, int], ...]
    words: tuple[str, ...] = ()

    def holds(self, sic: int) -> bool:
        return any(lo <= sic <= hi for lo, hi in self.sic_ranges)


# Most specific first: `primary_sector` names a code by the first industry that holds it.
INDUSTRIES: tuple[Industry, ...] = (
    Industry(
        "semiconductors", ((3674, 3674),), ("semiconductor", "chips", "chipmakers", "chip makers")
    ),
    Industry("computer hardware", ((3570, 3579),), ("computers", "hardware")),
    Industry("electronic equipment", ((3600, 3699),), ("electronics",)),
    Industry(
        "software", ((7370, 7374),), ("software and services", "internet", "it services", "cloud")
    ),
    Industry("telecommunications", ((4800, 4899),), ("telecom",)),
    Industry(
        "media and entertainment",
        ((7810, 7841), (4830, 4841), (2710, 2749)),
        ("media", "entertainment", "streaming"),
    ),
    Industry("pharmaceuticals", ((2830, 2836),), ("pharma", "drugs", "biotechnology", "biotech")),
    Industry("medical devices", ((3840, 3851),), ("medical equipment",)),
    Industry("banks", ((6020, 6036),), ("banking",)),
    Industry("insurance", ((6300, 6411),), ("insurers",)),
    Industry(
        "payments",
        ((7389, 7389), (6099, 6099), (6141, 6141)),
        ("payment networks", "card networks"),
    ),
    Industry(
        "automobiles",
        ((3711, 3716), (3714, 3714)),
        ("autos", "cars", "automotive", "electric vehicles"),
    ),
    Industry(
        "aerospace and defense",
        ((3720, 3729), (3760, 3769), (3812, 3812)),
        ("aerospace", "defense", "aircraft"),
    ),
    Industry("retail", ((5200, 5999),), ("retailers", "stores")),
    Industry("railroads", ((4011, 4013),), ("rail", "railways")),
    Industry("transportation", ((4000, 4799),), ("logistics", "shipping", "airlines")),
    Industry("beverages", ((2080, 2087),), ("drinks",)),
    Industry("food", ((2000, 2099),), ("food products",)),
    Industry(
        "consumer products",
        ((2840, 2844), (2670, 2679), (3140, 3149), (2300, 2399)),
        ("household products", "apparel", "consumer goods"),
    ),
)


def industries_of(sic: object) -> list[str]:
    """Every industry a SIC code falls in, most specific first."""
    code = to_int(sic)
    return [] if code is None else [i.name for i in INDUSTRIES if i.holds(code)]


def primary_sector(sic: object) -> str | None:
    """The finest name for a SIC code: its first industry, else its sector; None without a code
    ('3674' → 'semiconductors', '4911' → 'Utilities')."""
    found = industries_of(sic)
    return found[0] if found else sector_of_sic(sic)


Grain = Literal["sic", "sector", "industry", "description", "none"]


@dataclass(frozen=True)
class SectorMatch:
    """What a `sector` argument named: the sector or industry (`sector`, None when only SEC's
    descriptions matched), how it was matched (`grain`), and the SIC codes it covers among the
    snapshot's companies."""

    text: str
    sector: str | None
    grain: Grain
    sic_codes: tuple[str, ...]


def _key(text: str) -> str:
    return " ".join(search_terms(text, keep_stopwords=True))


# Every name and word of the vocabulary by its key: a word names one sector or industry only
# (tests/test_retrieval checks that none is claimed twice).
_NAMED: dict[str, tuple[Grain, str]] = {
    **{
        _key(word): ("industry", industry.name)
        for industry in INDUSTRIES
        for word in (industry.name, *industry.words)
    },
    **{
        _key(word): ("sector", sector)
        for sector in SECTORS
        for word in (sector, *SECTOR_WORDS.get(sector, ()))
    },
}


def vocabulary_clashes() -> list[str]:
    """Words (as keys) that more than one sector or industry claims; [] when the vocabulary is
    unambiguous."""
    seen: dict[str, str] = {}
    clashes = []
    for grain, name, words in [
        *(("industry", i.name, (i.name, *i.words)) for i in INDUSTRIES),
        *(("sector", s, (s, *SECTOR_WORDS.get(s, ()))) for s in SECTORS),
    ]:
        for word in words:
            owner = f"{grain} {name}"
            if seen.setdefault(_key(word), owner) != owner:
                clashes.append(f"{word!r}: {seen[_key(word)]} and {owner}")
    return clashes


def resolve_sector(text: str, known: Iterable[tuple[object, str | None]]) -> SectorMatch:
    """`text` ("Information Technology", "semiconductors", "Banks", "3674") → the SIC codes of
    `known` ((sic, SEC description) pairs of the snapshot's companies) that it names (see the
    module). No codes with `sector` None: the text names nothing known here."""
    pairs = sorted({(str(s).strip(), d) for s, d in known if s is not None and str(s).strip()})
    code = to_int(text)
    if code is not None:
        codes = tuple(sorted({s for s, _ in pairs if to_int(s) == code}))
        return SectorMatch(text, primary_sector(code), "sic", codes)
    named = _NAMED.get(_key(text))
    if named is not None:
        grain, name = named
        if grain == "sector":
            held = {s for s, _ in pairs if sector_of_sic(s) == name}
        else:
            industry = next(i for i in INDUSTRIES if i.name == name)
            held = {s for s, _ in pairs if (c := to_int(s)) is not None and industry.holds(c)}
        return SectorMatch(text, name, grain, tuple(sorted(held)))
    words = set(search_terms(text))
    if not words:
        return SectorMatch(text, None, "none", ())
    codes = tuple(sorted({s for s, d in pairs if d and words <= set(search_terms(d))}))
    return SectorMatch(text, None, "description" if codes else "none", codes)


def sector_choices() -> str:
    """The names a `sector` argument takes, for an error message that lists them."""
    return (
        f"sectors (SIC-based): {', '.join(SECTORS)}; industries: "
        f"{', '.join(i.name for i in INDUSTRIES)}; or a four-digit SIC code"
    )
