"""The rules backend's cue lexicon: the patterns that open a relation's scope, bind names
to it, and read amounts, metrics and periods, and the small tables beside them (quarter
words, a verb's noun). Pure data, compiled once; the passes that use them are in
rules_backend, the readers they share in rules_readers."""

from __future__ import annotations

import re

from graphrag_core.common.numbers import NUMBER_SCALE_WORD_RE

_I = re.I

# -- cues that open a scope: names after the cue (until the next cue) are bound ---------------

SUPPLY_VERB = re.compile(
    r"\b(?:rel(?:y|ies|ied)|depend(?:s|ed)?)\s+(?:\w+\s+){0,3}?(?:on|upon)\b", _I
)
SUPPLY_ACTION = re.compile(
    r"\b(?:manufactur\w*|produc\w*|fabricat\w*|suppl\w*|assembl\w*|packag\w*|foundr\w*|wafers?|"
    r"components?|memory|substrates?)\b",
    _I,
)
PROCURE_VERB = re.compile(
    r"\b(?:utiliz(?:e|es|ed)|use[sd]?|engage[sd]?|source[sd]?|purchase[sd]?|buy|buys|bought|"
    r"obtain(?:s|ed)?|procure[sd]?|outsource[sd]?|contract(?:s|ed)?(?=\s+with)|licen[sc]e[sd]?)\b",
    _I,
)
SUPPLY_NOUN = re.compile(
    r"\b(?:foundr(?:y|ies)|suppliers?|subcontractors?|(?:contract\s+)?manufacturers?|vendors?|"
    r"manufacturing\s+partners?|from)\b",
    _I,
)
SUPPLIER_LIST = re.compile(
    r"\b(?:suppliers?|foundr(?:y|ies)|contract\s+manufacturers?|manufacturing\s+partners?|vendors?)"
    r"\s+(?:\w+\s+){0,2}?(?:include|includes|including|are|is|such\s+as)\b",
    _I,
)
MADE_BY = re.compile(
    r"\b(?:is|are|was|were)\s+(?:currently\s+|exclusively\s+|primarily\s+)?"
    r"(?:manufactured|produced|supplied|made|fabricated|assembled|packaged)\s+(?:for\s+us\s+)?by\b",
    _I,
)
# "X, …, were our suppliers of NIKE Air-Sole…": the sentence's subject supplies the filer.
ARE_OUR_SUPPLIERS = re.compile(
    r"\b(?:is|are|was|were|has\s+been|have\s+been)\s+(?:one\s+of\s+)?(?:our|the\s+company['’]s)\s+"
    r"(?:(?:principal|primary|main|major|largest|sole|exclusive|key|only)\s+)*"
    r"(?:suppliers?|vendors?|sources?|contract\s+manufacturers?)\b",
    _I,
)
# "X … has performed import-export financing services for us".
SERVES_US = re.compile(
    r"\b(?:provides?|provided|performs?|performed|has\s+(?:provided|performed)|have\s+(?:provided|performed))\s+"
    r"(?:[\w\-]+\s+){0,5}?services\s+(?:for|to)\s+(?:us|the\s+company)\b",
    _I,
)
# An opening phrase before a sentence's subject: "During fiscal 2025, ", "Since 1972, ".
INTRO = re.compile(r"^\W*(?:(?:during|in|for|since|as\s+of|at|on|through)\s+[^,]{1,40},\s+)?", _I)
# "Daewoong licenses the same toxin to Evolus": a supply between two named parties.
LICENSES_TO = re.compile(
    r"^\s+(?:licenses|supplies|sells|provides)\s+(?:[\w\-]+\s+){1,8}?to\s+$", _I
)

COMPETE = re.compile(
    r"\b(?:compet(?:e|es|ed|ing)\s+(?!for\b)(?:[\w’'\-]+\s+){0,6}?(?:with|against)"
    r"|competition\s+(?:\w+\s+){0,3}?from"
    r"|competitors?\s+(?:\w+\s+){0,3}?(?:include|includes|including|are|is|such\s+as)"
    r"|competing\s+(?:brands|products|companies)\s+(?:include|includes|including|are)"
    r"|competitive\s+(?:products|services|offerings)(?:\s+and\s+services)?,?\s+such\s+as)\b",
    _I,
)
COMPETITOR_AFTER = re.compile(
    r"^,?\s+(?:is|are|remains?)\s+(?:a|an|the|our|one\s+of\s+our)\s+"
    r"(?:(?:primary|principal|main|major|key|significant|chief|largest|leading|direct)\s+)+competitors?\b",
    _I,
)
# "each of Apple and Google have integrated competitive products": the named parties compete.
HAVE_COMPETITIVE = re.compile(
    r"^(?:\s*(?:,|and)\s*[A-Z][\w&.\-]*)*\s+(?:have|has|had)\s+(?:\w+\s+){0,2}competi(?:tive|ng)\s+"
    r"(?:products|services|offerings|platforms)\b",
    _I,
)
# Lead-ins of a list that follows in bullets or "Label: …" paragraphs.
COMPETE_LEAD_IN = re.compile(r"\bcompetitors?\b[^:]*\binclude\w*\s*:\s*$", _I)
SUPPLIER_LEAD_IN = re.compile(
    r"\b(?:suppliers?|vendors?|manufacturers?)\b[^:]*\binclude\w*\s*:\s*$", _I
)
CUSTOMER_LEAD_IN = re.compile(
    r"\b(?:our|its)\s+(?:\w+\s+){0,3}?customers\b[^:]*\binclude\w*\s*:\s*$", _I
)
SUBSIDIARY_LEAD_IN = re.compile(
    r"\b(?:our|its|the\s+company['’]s)\b[^:]*\bsubsidiar(?:y|ies)\b[^:]*(?:as\s+follows|include\w*|are)\s*:\s*$",
    _I,
)
# "MGA Agency, Inc. (“MGA Agency”): MGA Agency provides …": a paragraph that opens with a label.
LABEL = re.compile(r"^\s*(?P<label>[A-Z][^:\n;]{0,80}?(?:\s*\([^()\n]{1,40}\))?)\s*:\s+\S")
# "Examples include …", "These include …": the names of the list the text is about.
EXAMPLES = re.compile(
    r"^\W*(?:examples(?:\s+of\s+(?:these|such|them)(?:\s+\w+)?)?\s+(?:include|includes|are)"
    r"|(?:these|they)\s+include|such\s+(?:competitors|companies|suppliers|customers)\s+include)\b\s*:?",
    _I,
)
BULLET = re.compile(r"^\s*[•●○◦▪■·∙‣⁃\-–—*]")
# A footnote under a table or a figure: its mark, then its text ("(1)American Express … data
# sourced from …", "* Excludes …"); inside a lead-in's list it does not end the list.
FOOTNOTE = re.compile(r"^\s*(?:\(\d{1,2}\)|\[\d{1,2}\]|\*{1,3}|[†‡¹²³⁴⁵⁶⁷⁸⁹])\s*[A-Z]")
# Sentences worth the relation patterns: ones that name a company, or hold a cue under which an
# enumeration may name one; ones with a money or percent figure, for guidance.
LIST_CUE = re.compile(
    r"\b(?:such\s+as|include[sd]?|including|compet\w*|suppl\w*|subsidiar\w*|customers?|"
    r"distributors?|wholesalers?|manufactur\w*|owns?\s+all|owned\s+by|acquired\s+by|segment,?\s+(?:which\s+)?(?:consists|comprises|is\s+(?:comprised|composed|made))|licen[sc]\w*|marketed\s+by|services\s+(?:for|to)\s+us)\b",
    _I,
)
FIGURE = re.compile(r"\$\s?\d|\d\s?%")
ACQUI = re.compile(r"\bacqui(?:red|sition)\b|\bpurchased\s+(?:all|100%)", _I)

# -- subsidiaries -------------------------------------------------------------------------------

OUR_SUBSIDIARY = re.compile(
    r"\b(?:our|the\s+company['’]s)\s+"
    r"(?:(?:wholly|majority)[- ]owned\s+|indirect\s+|direct\s+|principal\s+|operating\s+)*"
    r"subsidiar(?:y|ies)\b(?:\s+brand(?=\s*,))?(?!\s+(?:brands?|banks?|national|companies|entities|in\b))",
    _I,
)
# "Our principal operating subsidiary is X": one named subsidiary after the copula.
OUR_SUBSIDIARY_IS = re.compile(
    r"\b(?:our|the\s+company['’]s)\s+(?:principal|main|primary|sole|only|largest)\s+(?:operating\s+)?"
    r"subsidiary\s+(?:is|was)\s+(?=[A-Z])",
    _I,
)
NAMED_SUBSIDIARY = re.compile(
    r"\bour\s+(?P<name>[A-Z][\w&.\-]*(?:\s+[A-Z][\w&.\-]*){0,3})\s+subsidiary\b"
)
# "our Russian subsidiary", "our U.K. subsidiary": a nationality, not a name.
DEMONYM = re.compile(
    r"^(?:[A-Z][a-z]+(?:ian|ean|can|ese|ish|ch|ss|i|an)|U\.?S\.?|U\.?K\.?|EU|Dutch|Swiss|Thai|Greek)$"
)
PARENTS_SUBSIDIARY = re.compile(
    r"^['’]s?\s+(?:(?:wholly|majority)[- ]owned\s+|indirect\s+|direct\s+)*subsidiar(?:y|ies)\b,?",
    _I,
)
SUBSIDIARY_LINK = re.compile(
    r"(?:\s+(?:is|was|became)\s+|(?P<appositive>,)\s+)(?:a|an|our|its|the)\s+"
    r"(?:(?:indirect|direct|wholly|majority|partially|consolidated|principal|primary|main)"
    r"[- ]?(?:owned\s+)?)*"
    r"(?:subsidiary|operating\s+(?:company|subsidiary))\b(?P<of>\s+of\s+)?",
    _I,
)
# What may stand between a name and its link: its alias in parentheses, an aside in commas.
INTERJECTION_TAIL = re.compile(
    r"(?:\s*\([^()]{0,60}\))?(?:,\s+(?:a|an)\s+[^,.;()]{0,60}?\s+(?:which|that)|,[^,.;A-Z]{0,60})?$"
)
ITS_SUBSIDIARY = re.compile(
    r"^\W*its\s+(?:(?:primary|principal|main|largest|operating|wholly[- ]owned)\s+)*"
    r"subsidiar(?:y|ies)\b",
    _I,
)
NAME_TAIL = re.compile(r"(?:[A-Z0-9][\w&.\-’']*)(?:\s+(?:[A-Z0-9][\w&.\-’']*|of|and|&|de))*\s*$")
NAME_HEAD = re.compile(r"^(?:[A-Z0-9][\w&.\-’']*)(?:,?\s+(?:[A-Z0-9][\w&.\-’']*|of|and|&|de))*")
PRINCIPAL_SUBSIDIARY = re.compile(
    r"^\s+(?:is|was)\s+(?:the\s+company['’]s|our|its)\s+(?:principal\s+|main\s+|primary\s+|operating\s+|"
    r"(?:wholly|majority)[- ]owned\s+)*subsidiary\b(?!['’]s|\s+\w+['’]s\b)",
    _I,
)
PARENT_IS_FILER = re.compile(r"^(?:the\s+company|us|ours)\b", _I)
# A sentence whose subject is the filer: "We then utilize…", "The Company purchases…".
FILER_OPENS = re.compile(
    r"^\W*(?:(?:in\s+addition|additionally|also|further),?\s+)?(?:we|the\s+company)\b", _I
)

# -- customers ----------------------------------------------------------------------------------

PCT = r"\d+(?:\.\d+)?\s?%"
SHARE_OF_REVENUE = (
    r"\s*,?\s*(?:respectively,?\s+)?of\s+(?:our\s+|the\s+company['’]s\s+|its\s+|[A-Z][\w'’]*\s+)?"
    r"(?:total\s+|net\s+|consolidated\s+|gross\s+)*(?:revenues?|net\s+sales|sales)\b"
)
DESIGNATED_CUSTOMERS = re.compile(
    r"\b(?i:sales\s+to|revenue\s+from)\s+(?i:our\s+)?(?i:direct\s+|indirect\s+)?(?i:customers?)\s+"
    r"(?P<names>[A-Z](?:\s*,\s*[A-Z])*(?:,?\s+and\s+[A-Z])?)\s+"
    r"(?i:represented|accounted\s+for|comprised|were)\s+(?i:approximately\s+)?"
    rf"(?P<pcts>{PCT}(?:\s*,\s*{PCT})*(?:,?\s+and\s+{PCT})?)(?i:{SHARE_OF_REVENUE})",
)
ONE_DESIGNATED = re.compile(
    r"\b(?P<who>Customer\s+[A-Z])\b(?:\s*,[^,]{0,60},|,)?\s+"
    r"(?i:represented|accounted\s+for|comprised)\s+(?i:approximately\s+)?"
    rf"(?P<pct>{PCT})(?i:{SHARE_OF_REVENUE})",
)
SHARE_AFTER_NAMES = re.compile(
    r"^(?:['’]s\s+\w+)?(?:\s+and\s+its\s+affiliates)?(?:\s*,[^,]{0,60},)?\s+(?:represent(?:s|ed)?|accounted\s+for|comprised)\s+"
    rf"(?:approximately\s+|about\s+)?(?P<pcts>{PCT}(?:\s*,\s*{PCT})*(?:,?\s+and\s+{PCT})?)"
    rf"(?:\s*,?\s*respectively)?{SHARE_OF_REVENUE}",
    _I,
)
SALES_TO = re.compile(r"\bsales\s+to\s+$", _I)
CUSTOMER_LIST = re.compile(
    r"\b(?:customers?|clients?|distributors?|wholesalers?|retailers?)\s+"
    r"(?:(?!(?:agreements?|contracts?|data|bases?|relationships?|support|service|accounts?|"
    r"experiences?|demand|orders?|needs?|segments?|programs?)\b)\w+\s+){0,3}?"
    r"(?:include|includes|including|are|such\s+as)\b",
    _I,
)
DISTRIBUTORS_WHO = re.compile(
    r"\b(?:wholesale\s+)?(?:distributors|wholesalers|customers)\s*\((?P<names>[^()]{3,200})\)\s+"
    r"(?:accounted\s+for|represented|comprised)\b",
    _I,
)

# -- guidance -----------------------------------------------------------------------------------

AMOUNT = re.compile(
    r"(?P<money>\$\s?)?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"(?:\s*(?P<mult>{NUMBER_SCALE_WORD_RE})\b)?(?P<pct>\s?%)?",
    _I,
)
RANGE_JOIN = re.compile(r"\s*(?:to|-|–|—|and)\s*(?=\$?\s?\d)", _I)
METRIC_BEFORE_EXPECTED = re.compile(
    r"(?P<metric>[A-Za-z][\w’'\-]*(?:\s+(?:[\w’'\-]+|&)){0,9}?)\s+(?:in\s+(?:fiscal\s+)?(?:19|20)\d{2}\s+)?"
    r"(?:is|are|will\s+be)\s+(?:currently\s+|now\s+|also\s+)?(?:expected|anticipated|projected|estimated|forecast(?:ed)?)\s+"
    r"to\s+(?:be|total|range|approximate|exceed|reach|grow|increase|decrease|decline)\b",
    _I,
)
METRIC_AFTER_EXPECT = re.compile(
    r"\b(?:expects?|anticipates?|projects?|forecasts?|estimates?|targets?)\s+"
    r"(?P<metric>(?:[\w’'\-]+\s+|&\s+){1,10}?)to\s+(?:be|total|range|approximate|exceed|reach|grow|increase|"
    r"decrease|decline|remain)\b",
    _I,
)
METRIC_AFTER_MAKING = re.compile(
    r"\b(?:expect|anticipate|plan)(?:s|ing)?\s+(?:to\s+)?(?:making|make|spend(?:ing)?|incur(?:ring)?|invest(?:ing)?)\s+"
    r"(?P<metric>(?:[\w’'\-]+\s+){1,6}?)(?:of|at|totaling)\s+(?=(?:approximately\s+|about\s+)?\$)",
    _I,
)
# "We expect capital expenditures of approximately $2.5 billion", "we expect full-year adjusted EPS
# of $5.10 to $5.30", "we are targeting free cash flow of at least $3 billion": the metric is the
# noun phrase between the cue and "of" right before a figure (a sensitivity, "would reduce … by",
# and a past figure, "were", have no such cue).
METRIC_OF_FIGURE = re.compile(
    r"\b(?:(?:we|management|the\s+company)\s+(?:currently\s+|now\s+|also\s+|still\s+)?"
    r"(?:expects?|anticipates?|projects?|forecasts?|targets?)"
    r"|(?:are|is)\s+(?:currently\s+)?(?:targeting|projecting|forecasting|guiding\s+to))\s+"
    r"(?:(?:an?|the|our|its)\s+)?(?P<metric>(?!(?:to|that|a|an|the|making|spending|incurring|investing|paying)\b)(?:[A-Za-z][\w’'\-]*\s+|&\s+){1,8}?)"
    r"of\s+(?=(?:approximately\s+|about\s+|roughly\s+|around\s+|at\s+least\s+|up\s+to\s+|"
    r"between\s+|in\s+the\s+range\s+of\s+)?\$?\s?\d)",
    _I,
)
# "We anticipate that capital expenditures will be in the range of $800 million to $900 million".
METRIC_AFTER_THAT = re.compile(
    r"\b(?:expects?|anticipates?|projects?|forecasts?)\s+that\s+"
    r"(?P<metric>(?:[\w’'\-]+\s+|&\s+){1,8}?)(?:will|should|would)\s+(?:be|total|range|approximate|"
    r"exceed|reach)\b",
    _I,
)
# A sensitivity ("$20 million for each 1% increase in rates") is no forecast of the figure.
SENSITIVITY_AFTER = re.compile(
    r"\s*(?:,\s*)?(?:for\s+(?:each|every)|per)\s+(?:(?:one|1|10|100)\s*(?:%|percent|percentage|basis)|"
    r"\$|\d|(?:hypothetical\s+)?(?:one|a)\b)",
    _I,
)
CHANGE_BEFORE_FIGURE = re.compile(
    r"\b(?:increase|decrease|decline|growth|reduction|rise|change|drop)s?\s+of\s+"
    r"(?:approximately\s+|about\s+|roughly\s+)?$",
    _I,
)
# A metric that names only a change, with no measure it changes ("a decline of 5%").
CHANGE_ONLY = re.compile(
    r"^(?:(?:an?|the)\s+)?(?:(?:significant|modest|slight|further|continued|substantial|small|large|"
    r"net)\s+)?(?:increase|decrease|decline|growth|reduction|rise|change|"
    r"improvement|impact|benefit|charge)s?$"
    # "an increase in our depreciation expense of 3%": the figure is the change (METRIC_CHANGE's)
    r"|^(?:\w+\s+){0,2}?(?:increase|decrease|decline|growth|reduction|rise|change)s?\s+in\b",
    _I,
)
# "We are projecting an increase in our depreciation expense of approximately 3% to 4%".
METRIC_CHANGE = re.compile(
    r"\b(?:expect|project|anticipate|forecast|estimate)(?:s|ed|ing)?\s+(?:an?\s+|the\s+)?(?:\w+\s+)?"
    r"(?:increase|decrease|decline|growth|reduction|rise)\s+in\s+(?P<metric>(?:[\w’'\-]+\s+){1,6}?)(?:of|by)\s+"
    r"(?=(?:approximately\s+|about\s+|between\s+)?\$?\s?\d)",
    _I,
)
# "The estimated costs of the total program are between $0.9 billion - $1.0 billion".
METRIC_ESTIMATED = re.compile(
    r"\b(?:estimated|expected|anticipated|projected)\s+(?P<metric>(?:[\w’'\-]+\s+){0,4}?"
    r"(?:costs?|charges?|expenses?|spending|payments?|savings|proceeds)"
    r"(?:\s+of\s+(?:[\w’'\-]+\s+){0,3}?[\w’'\-]+)?)\s+(?:is|are|will\s+be|of|total(?:s|ing)?)\s+"
    r"(?=(?:approximately\s+|about\s+|between\s+|in\s+the\s+range\s+of\s+)?\$?\s?\d)",
    _I,
)
METRIC_IN_THE_FORM = re.compile(
    r"\bin\s+the\s+form\s+of\s+(?P<metric>(?:[\w’'\-]+\s*){1,4}?)(?=\s+in\s+|[,.;]|$)", _I
)
METRIC_AFTER_AMOUNT = re.compile(
    r"\s+in\s+(?P<metric>(?:[\w’'\-]+\s+){1,9}?[\w’'\-]+)(?=[,.;]|$)", _I
)
METRIC_DROP = re.compile(
    r"^(?:the\s+|our\s+)?company['’]s\s+|^(?:the|our|its|their|these|those|such|a|an)\s+"
    r"|\b(?:in|for|during)\s+(?:the\s+)?(?:full[- ]year\s+|fiscal\s+(?:year\s+)?)?"
    r"(?:19|20)\d{2}\b.*$"
    r"|\b(?:full[- ]year|fiscal)\s+(?:19|20)\d{2}\b\s*|\b(?:19|20)\d{2}\b\s*|^full[- ]year\s+",
    _I,
)
NOT_A_METRIC = re.compile(
    r"^(?:it|this|that|these|those|they|we|us|them|which|there|such|amounts?|results?|approximately|about)$"
    r"|^(?:in|at|of|between|approximately|about|around|up|to|by|from)\b",
    _I,
)
QUARTER = {"first": 1, "second": 2, "third": 3, "fourth": 4, "q1": 1, "q2": 2, "q3": 3, "q4": 4}
QUARTER_PERIOD = re.compile(
    r"\b(?:(?P<q>first|second|third|fourth)\s+(?:fiscal\s+)?quarter\s+(?:of\s+)?(?:fiscal\s+)?(?:year\s+)?"
    r"|(?P<qq>Q[1-4])\s+(?:fiscal\s+)?(?:FY)?)(?P<y>(?:19|20)\d{2})\b",
    _I,
)
# "the first half of fiscal 2026", "first six months of 2025", "the first nine months of fiscal
# year 2025": part of a year to date, not the year (a share for a half is not the year's share).
PART_YEAR_PERIOD = re.compile(
    r"\b(?:(?P<half>first|second)\s+half|(?:first\s+)?(?P<months>six|nine)\s+months)\s+"
    r"(?:of\s+)?(?:the\s+)?(?:fiscal\s+)?(?:years?\s+)?(?:FY\s?)?(?P<y>(?:19|20)\d{2})\b",
    _I,
)
PART_OF = {"first": "H1", "second": "H2", "six": "H1", "nine": "9M"}
YEAR_PERIOD = re.compile(
    r"\b(?:(?:full[- ])?(?:fiscal\s+)?(?:year\s+)?)(?P<y>(?:19|20)\d{2})\b(?!\s*(?:-|–)\s*\d)", _I
)
# A period after these is the comparison base (or a date), not the period the statement is about.
COMPARISON = re.compile(
    r"\b(?:compared\s+(?:with|to)|versus|vs\.?|from|over|than|prior|as\s+of|since|through|"
    r"ended|ending|at)\s+(?:\S+\s+){0,4}$",
    _I,
)
DATE_AROUND = re.compile(
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+$", _I
)
EX21_HEADER = re.compile(
    r"^(?:name|jurisdiction|organized|percentage|state\s+or\s+country|subsidiar|company|entity|"
    r"december\s+\d|exhibit)\b|\bname\s*$",
    _I,
)
# "The Company expects to contribute approximately $30 million in 2025 to our pension trusts",
# "The Corporation plans to invest in the range of $27 billion to $29 billion in 2025": the
# metric is the verb's noun, and what it goes to.
VERB_METRIC = re.compile(
    r"\b(?:expects?|plans?|anticipates?|intends?|estimates?)\s+to\s+"
    r"(?P<verb>contribute|spend|invest|pay|repurchase|return|incur|deploy)\b(?P<rest>[^.;]{0,120})",
    _I,
)
VERB_NOUN = {
    "contribute": "contributions",
    "spend": "spending",
    "invest": "investment",
    "pay": "payments",
    "repurchase": "share repurchases",
    "return": "capital returns",
    "incur": "costs",
    "deploy": "investment",
}
VERB_OBJECT = re.compile(
    r"\b(?:to|in|on|into|for)\s+(?P<obj>(?:our|the|its)\s+(?:[\w’'\-]+\s+){0,3}?[\w’'\-]+)(?=[,.;]|\s+(?:in|during|for|by|over|through)\b|$)",
    _I,
)
FIGURE_LINK = re.compile(r"^[^.;:$%\d]{0,80}$")
CUE_BEFORE_FIGURE = re.compile(
    r"\b(?:expects?|anticipates?|plans?\s+to\s+\w+|projects?|estimates?)\b[^.;$%\d]{0,50}$", _I
)
# A list whose last item ends on a kind of product, in lower case ("Radeon, Ryzen and Xilinx
# products"; "Acme Products Inc." is a name).
PRODUCT_AFTER_LIST = re.compile(
    r"[ \t]+(?:branded\s+)?(?:products?|processors?|devices?|brands?|drugs?|medicines?|platforms?|"
    r"chips?|GPUs?|CPUs?|vehicles?|models?|franchises?|product\s+lines?)(?![\w\-])(?!,?\s+(?-i:[A-Z]))"
)
# The capitalized words an item opens on (possibly none).
NAME_WORDS = re.compile(r"(?:[A-Z][\w&’'\-]*(?:\s+[A-Z][\w&’'\-]*)*)?")
# "our Zentrix platform", "the Company's Zentrix products": a capitalized word the filer owns.
OWN_BRAND = re.compile(r"\b(?:our|the\s+company['’]s)\s+(?:own\s+)?((?-i:[A-Z])[\w\-]+)", _I)
CAPITAL_RUN = re.compile(r"[A-Z][\w&.\-’']*(?:\s+[A-Z][\w&.\-’']*)*")
# An alias of the previous item ("Advanced Micro Devices, Inc., or AMD", "Hon Hai (Foxconn)").
ALIAS_BEFORE = re.compile(r"(?:,\s*or\s+(?:the\s+)?|\(\s*(?:the\s+)?)[“\"]?$", _I)
LIST_OPENING = re.compile(
    r"^[\s,:(]*(?:(?:primarily|including|namely|such\s+as|doing\s+business\s+as|d/b/a)\s+)?$", _I
)
LIST_JOINER = re.compile(r"^(?:\s+in\s+(?:19|20)\d{2})?\s*(?:,|,?\s*and|,?\s*&)\s*$", _I)
# Abbreviations whose period is part of a name ("Acme, Inc."): any other final period ends the
# sentence ("… acquired Acme GmbH.").
ABBREVIATED_TAIL = re.compile(
    r"(?:\b(?:Inc|Corp|Co|Ltd|Bhd|Pty|Cie|Cia|Bros|Mfg|Intl|Jr|Sr)|\.[A-Za-z])\.$"
)
