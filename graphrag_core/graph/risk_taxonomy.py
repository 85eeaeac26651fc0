"""The risk taxonomy: a small, curated set of risk categories that EXPOSED_TO_RISK edges point
at, so that "who else is exposed to export controls" has one node to ask about.

A filing states a risk in its own words: a short topic ("export controls", what the rules
extractor emits) or a whole Item 1A risk-factor heading ("Our sales to China may be limited by
U.S. export controls, and our competitive position could suffer"). Both are classified here
by weighted keyword patterns: every category scores the patterns it finds in the phrase, and
the phrase belongs to the best category when that one scores at least `MIN_SCORE` and strictly
more than any other. A tie between two categories is *ambiguous* and is not guessed: the
heading is published as a risk node of its own under `other` (resolution), and goes to the
review queue with both categories proposed, where a person can merge it into one
(`filings-graph entities merge`). The phrase itself is kept on the edge's evidence, so the
category never replaces what the filing said.

Specific multi-word patterns weigh 3, telling single words 2, words that only lean a reading
1; a heading naming its subject in a specific phrase therefore outweighs one that mentions
another topic in passing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MIN_SCORE = 2


@dataclass(frozen=True)
class RiskCategory:
    key: str  # the node is RISK:<key>
    label: str
    description: str
    patterns: tuple[tuple[re.Pattern[str], int], ...]

    @property
    def entity_id(self) -> str:
        return f"RISK:{self.key}"


def _category(key: str, label: str, description: str, *patterns: tuple[str, int]) -> RiskCategory:
    return RiskCategory(
        key, label, description, tuple((re.compile(p, re.I), w) for p, w in patterns)
    )


TAXONOMY: tuple[RiskCategory, ...] = (
    _category(
        "export-controls",
        "Export controls and sanctions",
        "licensing requirements and bans on exporting products or technology, entity lists, "
        "sanctions",
        (r"\bexport\s+(?:controls?|restrictions?|licen[cs]\w*|regulations?|rules?|bans?)\b", 3),
        (r"\brestrictions?\s+on\s+(?:the\s+)?exports?\b", 3),
        (r"\bentity\s+list\b", 3),
        (r"\bsanctions?\b", 2),
        (r"\bexports?\b", 1),
    ),
    _category(
        "trade-tariffs",
        "Tariffs and trade policy",
        "tariffs, trade disputes and restrictions, protectionism, changes in trade policy",
        (r"\btariffs?\b", 3),
        (r"\btrade\s+(?:restrictions?|disputes?|wars?|polic\w+|barriers?|tensions?)\b", 3),
        (r"\bprotectionis\w+", 3),
        (r"\bduties\b", 1),
    ),
    _category(
        "supplier-concentration",
        "Supplier concentration and supply chain",
        "dependence on few suppliers, foundries or contract manufacturers; supply chain "
        "disruptions and component shortages",
        (r"\bsupply\s+chains?\b", 3),
        (r"\b(?:sole|single|limited)[- ]sources?\b", 3),
        (r"\blimited\s+number\s+of\s+(?:suppliers|vendors|manufacturers|foundries)\b", 3),
        (r"\b(?:third[- ]party|contract)\s+manufactur\w+", 3),
        (r"\bthird\s+parties\s+to\s+(?:manufactur|produc|assembl|fabricat)\w*", 3),
        (r"\bsuppliers?\b", 2),
        (r"\bfoundr(?:y|ies)\b", 2),
        (r"\b(?:component|supply|chip|semiconductor)\s+shortages?\b", 3),
        (r"\bshortages?\b", 1),
        (r"\bmanufacturing\s+capacity\b", 2),
        (r"\bvendors?\b", 1),
    ),
    _category(
        "customer-concentration",
        "Customer concentration",
        "a large share of revenue from few customers, partners or distributors",
        (r"\b(?:limited|small)\s+number\s+of\s+(?:customers|partners|distributors)\b", 3),
        (r"\bcustomer\s+concentration\b", 3),
        (r"\bconcentrat\w+\s+(?:of\s+)?(?:our\s+)?customers?\b", 3),
        (r"\b(?:significant|major|key|large|largest)\s+customers?\b", 3),
        (r"\bcustomers?\b", 1),
    ),
    _category(
        "cybersecurity",
        "Cybersecurity",
        "cyberattacks, breaches of systems or data, ransomware, IT system failures",
        (r"\bcyber\w*", 3),
        (r"\bransomware\b", 3),
        (r"\b(?:security|data)\s+breach\w*", 3),
        (r"\bsecurity\s+incidents?\b", 3),
        (r"\bmalware\b", 3),
        (r"\bhack\w*", 2),
        (r"\binformation\s+technology\s+systems?\b", 2),
        (r"\bIT\s+systems?\b", 2),
    ),
    _category(
        "data-privacy",
        "Data privacy",
        "privacy and data protection laws, handling of personal information",
        (r"\bprivacy\b", 3),
        (r"\bdata\s+protection\b", 3),
        (r"\bGDPR\b", 3),
        (r"\bpersonal\s+(?:data|information)\b", 2),
    ),
    _category(
        "interest-rates",
        "Interest rates",
        "changes in interest rates and their effect on borrowing costs, investments and demand",
        (r"\binterest\s+rates?\b", 3),
    ),
    _category(
        "currency",
        "Foreign currency",
        "exchange-rate movements against the reporting currency",
        (r"\bforeign\s+(?:currenc\w+|exchange)\b", 3),
        (r"\bexchange\s+rates?\b", 3),
        (r"\bcurrenc(?:y|ies)\b", 2),
    ),
    _category(
        "inflation",
        "Inflation",
        "rising prices of inputs, labor and goods",
        (r"\binflation\w*", 3),
    ),
    _category(
        "litigation",
        "Litigation",
        "lawsuits, legal proceedings, class actions, investigations",
        (r"\blitigation\b", 3),
        (r"\blawsuits?\b", 3),
        (r"\blegal\s+(?:proceedings?|matters|claims)\b", 3),
        (r"\bclass\s+actions?\b", 3),
        (r"\binvestigations?\b", 2),
        (r"\bclaims\b", 1),
    ),
    _category(
        "regulation",
        "Government regulation",
        "laws, regulations, compliance, antitrust and other government action",
        (r"\bgovernment(?:al)?\s+(?:regulations?|actions?|scrutiny)\b", 3),
        (r"\blaws\s+and\s+regulations\b", 3),
        (r"\bantitrust\b|\bcompetition\s+law\b", 3),
        (r"\bregulat\w+", 2),
        (r"\blegislation\b", 2),
        (r"\bcompliance\b", 1),
    ),
    _category(
        "competition",
        "Competition",
        "competitors, competitive pressure on prices and share",
        (r"\bcompetition\b", 3),
        (r"\bcompetitors?\b", 3),
        (r"\bcompet(?:e|es|ing)\b", 3),
        (r"\bcompetitive\b", 2),
    ),
    _category(
        "key-personnel",
        "Key personnel",
        "dependence on executives and skilled employees; attracting and retaining talent",
        (r"\bkey\s+(?:personnel|employees|executives|management|talent)\b", 3),
        (r"\battract(?:,|\s+and)\s+(?:\w+\s+)?retain\b", 3),
        (r"\bretain\w*\s+(?:\w+\s+)?(?:employees|talent|personnel)\b", 3),
        (r"\btalent\b", 2),
        (r"\bsuccession\b", 2),
    ),
    _category(
        "intellectual-property",
        "Intellectual property",
        "protecting patents, trademarks and trade secrets; infringement claims",
        (r"\bintellectual\s+property\b", 3),
        (r"\bpatents?\b", 3),
        (r"\btrade\s+secrets?\b", 3),
        (r"\binfring\w+", 2),
        (r"\btrademarks?\b", 2),
    ),
    _category(
        "tax",
        "Tax",
        "changes in tax laws and rates, tax disputes",
        (r"\btax\s+(?:laws?|legislation|rates?|reform|polic\w+|audits?|liabilit\w+)\b", 3),
        (r"\btax(?:es|ation)?\b", 2),
    ),
    _category(
        "indebtedness",
        "Indebtedness and liquidity",
        "debt, credit ratings, access to capital and liquidity",
        (r"\bindebtedness\b", 3),
        (r"\bcredit\s+ratings?\b", 3),
        (r"\baccess\s+to\s+capital\b", 3),
        (r"\bdebt\b", 2),
        (r"\bborrowings?\b", 2),
        (r"\bliquidity\b", 2),
        (r"\bleverage\b", 1),
    ),
    _category(
        "geopolitical",
        "Geopolitical conflict",
        "war, armed conflict, terrorism, political instability and tension between countries",
        (r"\bgeopolitic\w+", 3),
        (r"\barmed\s+conflicts?\b", 3),
        (r"\bterroris\w+", 3),
        (r"\bpolitical\s+(?:instability|unrest|tensions?)\b", 3),
        (r"\bwars?\b", 2),
        (r"\bmilitary\b", 2),
    ),
    _category(
        "climate",
        "Climate change",
        "climate change, extreme weather, emissions rules and sustainability expectations",
        (r"\bclimate\b", 3),
        (r"\bextreme\s+weather\b", 3),
        (r"\bgreenhouse\b", 3),
        (r"\bemissions?\b", 2),
        (r"\bsustainability\b|\bESG\b", 2),
    ),
    _category(
        "natural-disasters",
        "Natural disasters",
        "earthquakes, floods, fires and other catastrophic events",
        (r"\bnatural\s+disasters?\b", 3),
        (r"\bearthquakes?\b", 3),
        (r"\bfloods?\b|\bhurricanes?\b|\bwildfires?\b", 2),
        (r"\bcatastroph\w+", 2),
    ),
    _category(
        "public-health",
        "Public health crises",
        "pandemics, epidemics and other public health emergencies",
        (r"\bpandemics?\b|\bepidemics?\b", 3),
        (r"\bpublic\s+health\b", 3),
        (r"\bCOVID\w*", 3),
        (r"\boutbreaks?\b", 2),
    ),
    _category(
        "technology-change",
        "Technological change",
        "rapid changes in technology and industry standards; new products and transitions",
        (r"\b(?:changes?\s+in|chang\w+)\s+(?:\w+\s+)?technolog\w+", 3),
        (r"\btechnological\s+change\w*", 3),
        (r"\bproduct\s+transitions?\b", 3),
        (r"\bobsole\w+", 2),
        (r"\binnovat\w+", 2),
        (r"\bnew\s+(?:products|technologies)\b", 2),
    ),
    _category(
        "macroeconomic",
        "Macroeconomic conditions",
        "economic downturns, recessions, weaker demand and spending",
        (r"\b(?:macro)?economic\s+(?:conditions|downturns?|uncertainty|slowdowns?)\b", 3),
        (r"\brecessions?\b", 3),
        (r"\bmacroeconomic\b", 3),
        (r"\b(?:consumer|customer)\s+(?:spending|demand)\b", 2),
    ),
    _category(
        "product-quality",
        "Product quality and liability",
        "defects, recalls, warranty and product liability claims",
        (r"\bdefects?\b|\bdefective\b", 3),
        (r"\brecalls?\b", 3),
        (r"\bproduct\s+liability\b", 3),
        (r"\bwarrant(?:y|ies)\b", 2),
    ),
    _category(
        "acquisitions",
        "Acquisitions and integration",
        "mergers and acquisitions: completing them, integrating acquired businesses, realizing "
        "their expected benefits, and divestitures",
        (r"\b(?:acquisitions?|mergers?|business\s+combinations?|divestitures?)\b", 3),
        (r"\bacquired\s+(?:businesses|companies|operations)\b", 3),
        (r"\bintegrat\w+", 2),
        (r"\b(?:anticipated|expected)\s+(?:benefits|synergies)\b", 2),
        (r"\bsynerg\w+", 2),
    ),
    _category(
        "share-price",
        "Share price volatility",
        "volatility of the stock's market price, dilution, dividends",
        (r"\b(?:stock|share)\s+price\b", 3),
        (r"\bmarket\s+price\s+of\s+(?:our\s+)?(?:common\s+)?(?:stock|shares)\b", 3),
        (r"\bdilution\b", 2),
        (r"\bvolatil\w+", 1),
    ),
)
BY_KEY: dict[str, RiskCategory] = {c.key: c for c in TAXONOMY}
BY_ID: dict[str, RiskCategory] = {c.entity_id: c for c in TAXONOMY}


@dataclass(frozen=True)
class RiskScore:
    category: RiskCategory
    score: int


@dataclass(frozen=True)
class RiskClassification:
    """`category` when one category wins; `ambiguous` lists the tied ones otherwise; both empty
    when the phrase names no risk of the taxonomy."""

    category: RiskCategory | None
    scores: tuple[RiskScore, ...] = ()

    @property
    def ambiguous(self) -> tuple[RiskCategory, ...]:
        if self.category is not None or len(self.scores) < 2:
            return ()
        top = self.scores[0].score
        return tuple(s.category for s in self.scores if s.score == top)


def score_phrase(phrase: str) -> tuple[RiskScore, ...]:
    """Every category's score for the phrase, best first (categories scoring 0 left out)."""
    scores = []
    for category in TAXONOMY:
        score = sum(weight for pattern, weight in category.patterns if pattern.search(phrase))
        if score:
            scores.append(RiskScore(category, score))
    return tuple(sorted(scores, key=lambda s: (-s.score, s.category.key)))


def classify_risk(phrase: str) -> RiskClassification:
    """The phrase's category (a short topic or a whole risk-factor heading), ambiguous when two
    categories tie at the top, none when nothing scores `MIN_SCORE`."""
    scores = tuple(s for s in score_phrase(phrase) if s.score >= MIN_SCORE)
    if not scores:
        return RiskClassification(None)
    if len(scores) > 1 and scores[0].score == scores[1].score:
        return RiskClassification(None, scores)
    return RiskClassification(scores[0].category, scores)
