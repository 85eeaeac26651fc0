"""Plain sector names from SEC SIC codes: the one mapping the screen and peer comparison use.

SEC assigns every registrant a four-digit Standard Industrial Classification code (the
`companies.sic` column). Analysts think in sectors ("semiconductors are technology"), so each
SIC code maps to one of eleven plain sector names modelled on the GICS sectors. The mapping is
by SIC range, the narrowest range containing the code winning; it is SIC-based, so it follows
SEC's classification, not an index provider's: Alphabet and Meta (SIC 7370, computer services)
are "Information Technology" here, not "Communication Services" as GICS has them since 2018.

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
| 2830–2836, 3840–3851, 5120–5129, 8000–8099 | Health Care |
| 3400–3599 (rest), 3720–3749, 3800–3829 (rest), 3812, 4000–4799, 5000–5199 (rest), 7300–7399 (rest), 8700–8799 | Industrials |
| 3570–3579, 3600–3699 (rest), 3820–3829, 7370–7379 | Information Technology |
| 4900–4999 | Utilities |
| 6000–6499, 6700–6797, 6799 | Financials |
| 6500–6599, 6798 | Real Estate |
| anything else (9100–9999: public administration, non-classifiable) | Other |
"""

from __future__ import annotations

from graphrag_core.common.numbers import to_int

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


def sector_named(text: str) -> str | None:
    """The sector a user's wording names: 'technology', 'Tech', 'health care', 'healthcare',
    'financials' → the canonical name; None when it names none."""
    key = "".join(ch for ch in text.lower() if ch.isalnum())
    if not key:
        return None
    aliases = {
        "tech": TECHNOLOGY,
        "technology": TECHNOLOGY,
        "it": TECHNOLOGY,
        "informationtechnology": TECHNOLOGY,
        "healthcare": HEALTH_CARE,
        "health": HEALTH_CARE,
        "financial": FINANCIALS,
        "finance": FINANCIALS,
        "banks": FINANCIALS,
        "communication": COMMUNICATION,
        "communications": COMMUNICATION,
        "telecom": COMMUNICATION,
        "media": COMMUNICATION,
        "staples": CONSUMER_STAPLES,
        "discretionary": CONSUMER_DISCRETIONARY,
        "realestate": REAL_ESTATE,
        "reits": REAL_ESTATE,
        "industrial": INDUSTRIALS,
        "utility": UTILITIES,
        "material": MATERIALS,
        "oilandgas": ENERGY,
    }
    for sector in SECTORS:
        if key == "".join(ch for ch in sector.lower() if ch.isalnum()):
            return sector
    return aliases.get(key)
