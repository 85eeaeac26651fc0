"""Sectors as analysts name them, on SEC's SIC codes (the `sic` of the companies table).

A question says "semiconductors" or "banks"; SEC files NVIDIA under SIC 3674 ("Semiconductors &
Related Devices"). A curated sector names SIC ranges (and the words a question may use for it);
a sector that is not curated is matched against the SIC descriptions SEC gives the companies of
the snapshot, word by word. Sectors overlap (semiconductors are also technology).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from graphrag_core.common.numbers import to_int
from graphrag_core.common.search_terms import search_terms


@dataclass(frozen=True)
class Sector:
    name: str
    sic_ranges: tuple[tuple[int, int], ...]
    aliases: tuple[str, ...] = ()

    def holds(self, sic: int) -> bool:
        return any(lo <= sic <= hi for lo, hi in self.sic_ranges)


SECTORS: tuple[Sector, ...] = (
    Sector(
        "semiconductors", ((3674, 3674),), ("semiconductor", "chips", "chipmakers", "chip makers")
    ),
    Sector("computer hardware", ((3570, 3579),), ("computers", "hardware")),
    Sector("electronic equipment", ((3600, 3699),), ("electronics",)),
    Sector(
        "software", ((7370, 7374),), ("software and services", "internet", "it services", "cloud")
    ),
    Sector(
        "technology",
        ((3570, 3579), (3600, 3699), (3810, 3829), (7370, 7379)),
        ("tech", "information technology"),
    ),
    Sector("telecommunications", ((4800, 4899),), ("telecom", "communications")),
    Sector(
        "media and entertainment",
        ((7810, 7841), (4830, 4841), (2710, 2749)),
        ("media", "entertainment", "streaming"),
    ),
    Sector("pharmaceuticals", ((2830, 2836),), ("pharma", "drugs", "biotechnology", "biotech")),
    Sector("medical devices", ((3840, 3851),), ("medical equipment",)),
    Sector(
        "health care",
        ((8000, 8099), (6324, 6324), (2830, 2836), (3840, 3851)),
        ("healthcare", "health"),
    ),
    Sector("banks", ((6020, 6036),), ("banking", "bank")),
    Sector("insurance", ((6300, 6411),), ("insurers",)),
    Sector("financials", ((6000, 6799),), ("financial services", "finance", "financial")),
    Sector(
        "payments",
        ((7389, 7389), (6099, 6099), (6141, 6141)),
        ("payment networks", "card networks"),
    ),
    Sector("oil and gas", ((1300, 1389), (2900, 2999)), ("energy", "oil", "petroleum")),
    Sector("utilities", ((4900, 4999),), ("electric utilities", "power")),
    Sector("retail", ((5200, 5999),), ("retailers", "stores")),
    Sector(
        "automobiles",
        ((3711, 3716), (3714, 3714)),
        ("autos", "cars", "automotive", "electric vehicles"),
    ),
    Sector(
        "aerospace and defense",
        ((3720, 3729), (3760, 3769), (3812, 3812)),
        ("aerospace", "defense", "aircraft"),
    ),
    Sector("railroads", ((4011, 4013),), ("rail", "railways")),
    Sector("transportation", ((4000, 4799),), ("logistics", "shipping", "airlines")),
    Sector("beverages", ((2080, 2087),), ("drinks",)),
    Sector("food", ((2000, 2099),), ("food products",)),
    Sector(
        "consumer products",
        ((2840, 2844), (2670, 2679), (3140, 3149), (2300, 2399)),
        ("household products", "apparel", "consumer goods"),
    ),
    Sector("real estate", ((6500, 6553), (6798, 6798)), ("reits", "property")),
)


def sectors_of(sic: str | int | None) -> list[str]:
    """Every curated sector a SIC code falls in (most specific first, as listed)."""
    code = to_int(sic)
    return [] if code is None else [s.name for s in SECTORS if s.holds(code)]


def primary_sector(sic: str | int | None) -> str | None:
    found = sectors_of(sic)
    return found[0] if found else None


@dataclass(frozen=True)
class SectorMatch:
    """What a sector argument matched: the curated sector (if any) and the SIC codes it covers
    among `known` (the snapshot's companies' codes)."""

    text: str
    sector: str | None
    sic_codes: tuple[str, ...]


def match_sector(text: str, known: Iterable[tuple[str, str | None]]) -> SectorMatch:
    """`text` ("semiconductors", "Banks", "3674") → the SIC codes of `known` ((sic, SEC
    description) pairs) that it names: a SIC code itself, a curated sector or one of its aliases,
    else every code whose SEC description holds all of the text's words."""
    wanted = " ".join(search_terms(text, keep_stopwords=True))
    pairs = [(str(s), d) for s, d in known if s]
    code = to_int(text)
    if code is not None:
        return SectorMatch(
            text, primary_sector(code), tuple(s for s, _ in pairs if to_int(s) == code)
        )
    for sector in SECTORS:
        names = (sector.name, *sector.aliases)
        if any(" ".join(search_terms(n, keep_stopwords=True)) == wanted for n in names):
            codes = tuple(
                sorted({s for s, _ in pairs if (c := to_int(s)) is not None and sector.holds(c)})
            )
            return SectorMatch(text, sector.name, codes)
    words = set(search_terms(text))
    if not words:
        return SectorMatch(text, None, ())
    codes = tuple(sorted({s for s, d in pairs if d and words <= set(search_terms(d))}))
    return SectorMatch(text, None, codes)
