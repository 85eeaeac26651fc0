"""Is this name an organisation? The check a name must pass before it becomes a provisional
`ORG:` node of its own.

Resolution used to be the only filter against wrong company triples: a product, drug, segment
or generic noun the extractor took for a party stayed out only because it resolved to nothing.
Keeping every unresolved name (issue 22: the review queue proposes merges, it does not withhold
facts) therefore needs its own evidence that the name is an organisation:

- a legal form ("Inc.", "Corp.", "plc", "S.A.", "N.V.", "GmbH", "Ltd.", …);
- a company list: the caller says the name is listed (registrant names, the curated file);
- the way the text introduces it, when the caller has the sentence: "X, a subsidiary of",
  "competitors such as X, Y and Z", "companies including X", an appositive "X, a … company";
- a proper name: every word capitalised (or a short acronym, or a lower-case-first brand with
  an inner capital such as "eBay"), as a party of a relation the gates accepted.

and a name is rejected, with a reason code the review queue shows, when it reads as something
else: a sentence or a risk-factor heading, an ALL-CAPS heading, a generic noun ("our
customers"), a segment or business line, a product or model (digits in a word, trademark
signs, product words), or a drug (an international non-proprietary name's stem).

Every test here is on the words alone: no company name appears in a rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag_core.common.names import has_legal_form

# Evidence codes (accepted) and reason codes (rejected).
LEGAL_FORM = "legal_form"
LISTED = "listed"
INTRODUCED = "introduced"
PROPER_NAME = "proper_name"

EMPTY = "not_org:empty"
SENTENCE = "not_org:sentence"
HEADING = "not_org:heading"
GENERIC = "not_org:generic_noun"
SEGMENT = "not_org:segment"
PRODUCT = "not_org:product"
DRUG = "not_org:drug"
LOWER_CASE = "not_org:lower_case"

# A name longer than this many words is a sentence or a heading, not a name.
MAX_NAME_WORDS = 7

# Words a name is written with that are not capitalised ("Bank of America", "Procter & Gamble").
_CONNECTORS = frozenset("of and & the de du des la le y et für von van der for in on at".split())
# Words of a sentence or heading, never of a company's name.
_SENTENCE_WORDS = frozenset(
    "we our us you they their its it is are was were be been may might could would should will "
    "can cannot if not no because which that who whom such these those this".split()
)
# Nouns a text uses for a kind of party, not a party ("our customers", "Key Suppliers").
_GENERIC_WORDS = frozenset(
    "customer customers supplier suppliers vendor vendors competitor competitors distributor "
    "distributors partner partners reseller resellers licensor licensors licensee licensees "
    "manufacturer manufacturers company companies entity entities subsidiary subsidiaries "
    "affiliate affiliates party parties government governments agency agencies bank banks "
    "retailer retailers provider providers carrier carriers operator operators others "
    "competition market markets industry industries business businesses counterparty "
    "counterparties third other certain various major large several many key principal main "
    "leading primary significant".split()
)
_POSSESSIVES = frozenset({"our", "their", "its", "your"})
# Words naming a part of a company or its line of business ("Data Center segment").
_SEGMENT_WORDS = frozenset(
    "segment segments division divisions unit units business businesses operations "
    "portfolio franchise franchises brand line lines category categories".split()
)
# Words naming a product, device or service rather than its maker.
_PRODUCT_WORDS = frozenset(
    "platform platforms processor processors gpu gpus cpu cpus chip chips chipset chipsets "
    "device devices console consoles software app apps tablet tablets injection injections "
    "capsule capsules vaccine vaccines drug drugs therapy therapies product products model "
    "models series edition version card cards accelerator accelerators server servers "
    "phone phones system systems engine engines vehicle vehicles".split()
)
# Stems of international non-proprietary drug names (WHO INN stems): "nivolumab", "imatinib".
_DRUG_STEM_RE = re.compile(
    r"(?:mab|tinib|ciclib|parib|rafenib|zomib|lisib|vir|previr|buvir|pril|sartan|olol|statin|"
    r"cept|kinra|parin|afil|gliptin|gliflozin|glutide|oxacin|cillin|cycline|azole|conazole|"
    r"dronate|setron|prazole|tidine|lukast|vastatin|platin|taxel|rubicin|tecan|semide)$",
    re.I,
)
# A word with a digit in it ("MI300X", "H100", "iPhone 15") or a trademark sign.
_MODEL_RE = re.compile(r"[A-Za-z]+\d|\d+[A-Za-z]|^\d+$|[®™©]")
_WORD_RE = re.compile(r"[^\s,;:()\"“”]+")
# How a text introduces organisations: "X, a subsidiary of", "competitors such as X",
# "companies including X", "X, a … company". `{name}` is the escaped name.
_INTRODUCTIONS = (
    r"{name},?\s+(?:a|an|our|its)\s+(?:wholly[- ]owned\s+|majority[- "
    r"]owned\s+|indirect\s+|direct\s+)?"
    r"(?:subsidiary|affiliate|unit|division)\s+of\b",
    r"\b(?:competitors?|rivals?|companies|manufacturers|suppliers|vendors|customers|distributors|"
    r"bottlers|licensees|licensors|banks|retailers|firms|providers|partners)\b[^.;]{{0,40}}?"
    r"\b(?:such\s+as|including|include|includes|like|namely|are|is)\b[^.;]*?{name}",
    r"{name},?\s+(?:a|an)\s+(?:[\w-]+\s+){{0,4}}(?:company|corporation|manufacturer|supplier|"
    r"retailer|bank|firm|distributor|bottler|provider|group|conglomerate)\b",
    r"\b(?:acquisition\s+of|acquired|merger\s+with|agreement\s+with|joint\s+venture\s+with)\s+{name}",
)


@dataclass(frozen=True)
class OrganisationCheck:
    """The verdict on one name: `ok` with the evidence that it is an organisation, or not `ok`
    with the reason it was kept out (a `not_org:` code, shown in the review queue)."""

    ok: bool
    reason: str


def _words(name: str) -> list[str]:
    return _WORD_RE.findall(name)


def _bare(word: str) -> str:
    return word.strip(".'’").lower()


def _rejection(name: str, words: list[str]) -> str | None:
    """Why the words read as something other than an organisation's name, or None."""
    bare = [_bare(w) for w in words]
    letters = [c for c in name if c.isalpha()]
    if len(words) >= 3 and letters and all(c.isupper() for c in letters):
        return HEADING
    significant = [b for b in bare if b not in _CONNECTORS]
    if not significant:
        return EMPTY
    # "our customers", "their suppliers": a kind of party named by whose it is.
    possessive = bare[0] in _POSSESSIVES and len(words) <= 3
    if possessive or all(b in _GENERIC_WORDS for b in significant):
        return GENERIC
    if len(words) > MAX_NAME_WORDS or any(b in _SENTENCE_WORDS for b in bare):
        return SENTENCE
    if any(b in _SEGMENT_WORDS for b in significant[-1:]):
        return SEGMENT
    if any(b in _PRODUCT_WORDS for b in significant) or any(_MODEL_RE.search(w) for w in words):
        return PRODUCT
    if len(significant) == 1 and _DRUG_STEM_RE.search(significant[0]) and len(significant[0]) > 6:
        return DRUG
    return None


def _is_proper(words: list[str]) -> bool:
    """Every word capitalised, an acronym, or a brand written with an inner capital ("eBay")."""
    for word in words:
        bare = word.strip(".,'’")
        if not bare or bare.lower() in _CONNECTORS:
            continue
        first = bare[0]
        if not (first.isupper() or first.isdigit() or any(c.isupper() for c in bare[1:])):
            return False
    return any(w.strip(".,'’").lower() not in _CONNECTORS for w in words)


def introduced_as_organisation(name: str, context: str) -> bool:
    """Does the sentence introduce `name` the way a text introduces a company?"""
    escaped = re.escape(name.strip())
    return any(re.search(p.format(name=escaped), context, re.I) for p in _INTRODUCTIONS)


def check_organisation(name: str, *, context: str = "", listed: bool = False) -> OrganisationCheck:
    """Is `name` (a party of a relation the gates accepted) an organisation? `context`: the
    sentence that names it, when the caller has it; `listed`: the name is on a company list.

    A legal form or a listing is enough on its own: "Acme Widgets Inc." is a company whatever
    the words before the suffix say. Otherwise the name must not read as a sentence, heading,
    generic noun, segment, product or drug, and must be a proper name or be introduced as an
    organisation by its sentence."""
    text = name.strip()
    words = _words(text)
    if not words:
        return OrganisationCheck(False, EMPTY)
    if listed:
        return OrganisationCheck(True, LISTED)
    if has_legal_form(text) and len(words) <= MAX_NAME_WORDS and not _rejection_is_sentence(words):
        return OrganisationCheck(True, LEGAL_FORM)
    rejected = _rejection(text, words)
    if rejected is not None:
        return OrganisationCheck(False, rejected)
    if context and introduced_as_organisation(text, context):
        return OrganisationCheck(True, INTRODUCED)
    if _is_proper(words):
        return OrganisationCheck(True, PROPER_NAME)
    return OrganisationCheck(False, LOWER_CASE)


# A legal-form name may hold any word ("Fully Will Limited"); only these make it a sentence.
_CLAUSE_WORDS = frozenset(
    "we our us is are was were may could would should if because which".split()
)


def _rejection_is_sentence(words: list[str]) -> bool:
    return any(_bare(w) in _CLAUSE_WORDS for w in words)
