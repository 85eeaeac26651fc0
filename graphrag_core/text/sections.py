"""Blocks of a filing document → its sections (10-K items, 10-Q parts and items, 8-K items).

Item headings are found as blocks that *start* with "Item N" (so a cross-reference inside a
sentence never splits a section). The table of contents repeats every heading, as do some
running page headers, so a heading is chosen by a small dynamic program: the in-order chain of
candidates (at most one per item, positions increasing) with the largest total weight, where
table-of-contents entries are excluded and earlier occurrences win ties. A 10-Q's "Item 1"
exists in Part I and Part II; both readings are offered and the order (and the nearest
"PART II" heading) decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphrag_core.text.parsing import Block

TEN_K_ITEMS: tuple[tuple[str, str], ...] = (
    ("1", "Business"),
    ("1A", "Risk Factors"),
    ("1B", "Unresolved Staff Comments"),
    ("1C", "Cybersecurity"),
    ("2", "Properties"),
    ("3", "Legal Proceedings"),
    ("4", "Mine Safety Disclosures"),
    # Not an item of Form 10-K itself, but the heading many registrants give the executive
    # officers' list under Instruction 3 to Item 401(b) (Salesforce, Exxon, ...).
    ("4A", "Executive Officers of the Registrant"),
    ("5", "Market for Registrant's Common Equity"),
    ("6", "Reserved"),
    ("7", "Management's Discussion and Analysis"),
    ("7A", "Quantitative and Qualitative Disclosures About Market Risk"),
    ("8", "Financial Statements and Supplementary Data"),
    ("9", "Changes in and Disagreements with Accountants"),
    ("9A", "Controls and Procedures"),
    ("9B", "Other Information"),
    ("9C", "Disclosure Regarding Foreign Jurisdictions that Prevent Inspections"),
    ("10", "Directors, Executive Officers and Corporate Governance"),
    ("11", "Executive Compensation"),
    ("12", "Security Ownership of Certain Beneficial Owners and Management"),
    ("13", "Certain Relationships and Related Transactions"),
    ("14", "Principal Accountant Fees and Services"),
    ("15", "Exhibits and Financial Statement Schedules"),
    ("16", "Form 10-K Summary"),
)

TEN_Q_ITEMS: tuple[tuple[str, str, str], ...] = (
    ("I", "1", "Financial Statements"),
    ("I", "2", "Management's Discussion and Analysis"),
    ("I", "3", "Quantitative and Qualitative Disclosures About Market Risk"),
    ("I", "4", "Controls and Procedures"),
    ("II", "1", "Legal Proceedings"),
    ("II", "1A", "Risk Factors"),
    ("II", "2", "Unregistered Sales of Equity Securities and Use of Proceeds"),
    ("II", "3", "Defaults Upon Senior Securities"),
    ("II", "4", "Mine Safety Disclosures"),
    ("II", "5", "Other Information"),
    ("II", "6", "Exhibits"),
)

EIGHT_K_ITEMS: tuple[tuple[str, str], ...] = (
    ("1.01", "Entry into a Material Definitive Agreement"),
    ("1.02", "Termination of a Material Definitive Agreement"),
    ("1.03", "Bankruptcy or Receivership"),
    ("1.04", "Mine Safety Reporting of Shutdowns and Patterns of Violations"),
    ("1.05", "Material Cybersecurity Incidents"),
    ("2.01", "Completion of Acquisition or Disposition of Assets"),
    ("2.02", "Results of Operations and Financial Condition"),
    ("2.03", "Creation of a Direct Financial Obligation"),
    ("2.04", "Triggering Events That Accelerate or Increase a Direct Financial Obligation"),
    ("2.05", "Costs Associated with Exit or Disposal Activities"),
    ("2.06", "Material Impairments"),
    ("3.01", "Notice of Delisting or Failure to Satisfy a Continued Listing Rule"),
    ("3.02", "Unregistered Sales of Equity Securities"),
    ("3.03", "Material Modification to Rights of Security Holders"),
    ("4.01", "Changes in Registrant's Certifying Accountant"),
    ("4.02", "Non-Reliance on Previously Issued Financial Statements"),
    ("5.01", "Changes in Control of Registrant"),
    ("5.02", "Departure of Directors or Certain Officers; Election of Directors"),
    ("5.03", "Amendments to Articles of Incorporation or Bylaws; Change in Fiscal Year"),
    ("5.04", "Temporary Suspension of Trading Under Registrant's Employee Benefit Plans"),
    ("5.05", "Amendments to the Registrant's Code of Ethics"),
    ("5.06", "Change in Shell Company Status"),
    ("5.07", "Submission of Matters to a Vote of Security Holders"),
    ("5.08", "Shareholder Director Nominations"),
    ("6.01", "ABS Informational and Computational Material"),
    ("6.02", "Change of Servicer or Trustee"),
    ("6.03", "Change in Credit Enhancement or Other External Support"),
    ("6.04", "Failure to Make a Required Distribution"),
    ("6.05", "Securities Act Updating Disclosure"),
    ("7.01", "Regulation FD Disclosure"),
    ("8.01", "Other Events"),
    ("9.01", "Financial Statements and Exhibits"),
)

# Before August 2004 an 8-K's items were plain integers with other meanings.
LEGACY_EIGHT_K_ITEMS: tuple[tuple[str, str], ...] = (
    ("1", "Changes in Control of Registrant"),
    ("2", "Acquisition or Disposition of Assets"),
    ("3", "Bankruptcy or Receivership"),
    ("4", "Changes in Registrant's Certifying Accountant"),
    ("5", "Other Events"),
    ("6", "Resignations of Registrant's Directors"),
    ("7", "Financial Statements and Exhibits"),
    ("8", "Change in Fiscal Year"),
    ("9", "Regulation FD Disclosure"),
    ("10", "Amendments to the Registrant's Code of Ethics"),
    ("11", "Temporary Suspension of Trading Under Registrant's Employee Benefit Plans"),
    ("12", "Results of Operations and Financial Condition"),
)

_ITEM_RE = re.compile(
    r"^\s*(?:part\s+(?P<part>iv|i{1,3})\b[\s.,:;\-–—]*)?"
    # "I TEM 1 A": letter-spaced small caps and a space before the letter are still headings.
    r"i\s?tems?\s*(?P<num>\d{1,2}(?:\.\d{2})?)\s?(?P<letter>[a-c])?(?![0-9a-z])"
    r"(?:\s*(?:and|&|,|through|-|–)\s*\d{1,2}[a-c]?\b)?"
    r"\s*(?P<sep>[.:;\-–—]?)\s*(?P<title>.*)$",
    re.I | re.S,
)
_PART_RE = re.compile(
    r"^\s*part\s+(?P<part>iv|i{1,3}|[1-4]|one|two|three|four)\b\s*[.:\-–—]?\s*(?P<rest>.{0,120})$",
    re.I | re.S,
)
# "PART 2" and "Part Two" name the same part as "PART II".
_PART_NAMES = {
    "1": "I",
    "2": "II",
    "3": "III",
    "4": "IV",
    "ONE": "I",
    "TWO": "II",
    "THREE": "III",
    "FOUR": "IV",
}
# Title-first headings: "Risk Factors", "RISK FACTORS (Item 1A)", "Risk Factors — Part I, Item 1A".
_TITLE_FIRST_RE = re.compile(
    r"^\s*(?P<title>[A-Za-z][^|]{2,110}?)\s*[(\[]?\s*(?:[.:,\-–—]\s*)?"
    r"(?:(?:part\s+(?:iv|i{1,3})\s*[,.\-–—]?\s*)?i\s?tem\s*(?P<num>\d{1,2})\s?(?P<letter>[a-c])?\.?\s*[)\]]?)?\s*$",
    re.I | re.S,
)
# Words that make a heading about an item something other than the item itself.
_NOT_THE_ITEM = {"summary", "see", "continued", "refer", "discussed", "described", "included"}
# Words a title-first heading may add to an item's short title (the official long forms).
_TITLE_EXTRAS = frozenset(
    "financial condition results operations overview general registrant registrants company "
    "related stockholder stockholders shareholder shareholders matters issuer purchases equity "
    "securities common market risk risks disclosures director independence".split()
)
# Title-first headings are short: a line, not a sentence.
_MAX_TITLE_HEADING = 120
_TRAILING_PAGE_RE = re.compile(r"(?:\s|\|)(?:\d{1,3}|[A-Z]-\d{1,3})\s*\|?\s*$")
_WORD_RE = re.compile(r"[a-z]+")
# Fewer distinct "Item N" headings than this and the finder also reads title-first headings
# ("Risk Factors" without its number). Filings with numbered items never see them, so their
# sections cannot move.
_MIN_NUMBERED_ITEMS = 2
# Characters between two headings below which they read as table-of-contents lines.
_TOC_GAP = 80


def form_family(form: str | None) -> str:
    """'10-K405', '10-K/A', '10-KT' → '10-K'; '10-Q/A' → '10-Q'; '8-K/A' → '8-K'."""
    f = (form or "").upper().strip()
    for family in ("10-K", "10-Q", "8-K"):
        if f.startswith(family):
            return family
    if f.startswith(("20-F", "40-F", "6-K", "S-1", "DEF 14A")):
        return f.split("/")[0]
    return f.split("/")[0] or "UNKNOWN"


@dataclass(frozen=True, slots=True)
class Section:
    """A run of blocks [first, last) of one document under one label."""

    label: str  # e.g. "10-K/Item 1A", "10-Q/Part II/Item 1A", "8-K/Item 2.02"
    first: int
    last: int


@dataclass(slots=True)
class _Candidate:
    block: int
    num: str  # "1A", "7", "2.02"
    part: str | None  # explicit "PART II" on the heading line
    title: str
    in_toc: bool
    weight: float


def _title_words(title: str) -> set[str]:
    return set(_WORD_RE.findall(title.lower())) - {
        "and",
        "of",
        "the",
        "in",
        "with",
        "for",
        "on",
        "s",
    }


def _title_matches(found: str, canonical: str) -> bool:
    want = _title_words(canonical)
    got = _title_words(found[: len(canonical) + 40])
    return bool(want) and len(want & got) >= max(1, min(2, len(want)))


def _item_number(m: re.Match) -> str:
    num = m.group("num")
    letter = (m.group("letter") or "").upper()
    if "." in num:
        major, minor = num.split(".")
        return f"{int(major)}.{minor}"
    return f"{int(num)}{letter}"


def _title_first(text: str, titles: dict[str, str]) -> tuple[str, str] | None:
    """(item number, title) of a heading that names the item by its title, before or without
    its number ("Risk Factors", "RISK FACTORS (ITEM 1A)"); None for anything longer or vaguer
    than a title. A number that disagrees with the title's item rejects the heading."""
    if len(text) > _MAX_TITLE_HEADING:
        return None
    m = _TITLE_FIRST_RE.match(text)
    if not m:
        return None
    got = _title_words(m.group("title"))
    words = _WORD_RE.findall(m.group("title").lower())
    if not words or got & _NOT_THE_ITEM:
        return None
    stated = f"{int(m.group('num'))}{(m.group('letter') or '').upper()}" if m.group("num") else None
    for num, canonical in titles.items():
        want = _title_words(canonical)
        # The whole title, led by its first word, and nothing but title words (the long form
        # "... of Financial Condition and Results of Operations"): "Business risks could
        # harm us" is a sentence, not the Business heading.
        if want and want <= got and got - want <= _TITLE_EXTRAS and words[0] in want:
            if stated is not None and stated != num:
                return None
            return num, m.group("title").strip()
    return None


def _candidates(
    blocks: list[Block],
    titles: dict[str, str],
    parts: list[tuple[int, str]] | None = None,
    title_first: bool = False,
) -> list[_Candidate]:
    found: list[_Candidate] = []
    for i, text in _heading_texts(blocks, titles if title_first else None):
        m = _ITEM_RE.match(text)
        if not m:
            named = _title_first(text, titles) if title_first else None
            if named is not None:
                found.append(
                    _Candidate(
                        block=i,
                        num=named[0],
                        part=None,
                        title=named[1],
                        in_toc=bool(_TRAILING_PAGE_RE.search(text)),
                        weight=1.0,
                    )
                )
            continue
        num = _item_number(m)
        if num not in titles:
            continue
        title = m.group("title").strip()
        if not title and i + 1 < len(blocks) and blocks[i + 1].kind == "text":
            title = blocks[i + 1].text[:160]
        canonical = titles[num]
        matches = _title_matches(title, canonical)
        short = len(text) <= 160
        # A long paragraph that merely starts with "Item 7 of this report…" is prose, not a
        # heading: accept long blocks only when the canonical title follows the label.
        if not short and not (matches and m.group("sep") not in {",", ";"}):
            continue
        if m.group("sep") == "," or (title[:1].islower() and not matches):
            continue
        found.append(
            _Candidate(
                block=i,
                num=num,
                part=(m.group("part") or "").upper() or None,
                title=title,
                in_toc=bool(_TRAILING_PAGE_RE.search(text)) and len(text) < 160,
                weight=1.0 + (0.25 if matches else 0.0),
            )
        )
    for c in found:
        if c.part is None and parts:
            c.part = next((p for b, p in reversed(parts) if b < c.block), None)
    # Table-of-contents entries: a dense run of headings with (almost) nothing between them,
    # whose items all come back later in the document (in the same part, for a 10-Q).
    for k, c in enumerate(found):
        run_start = k
        while (
            run_start > 0
            and _gap(blocks, found[run_start - 1].block, found[run_start].block) < _TOC_GAP
        ):
            run_start -= 1
        run_end = k
        while (
            run_end + 1 < len(found)
            and _gap(blocks, found[run_end].block, found[run_end + 1].block) < _TOC_GAP
        ):
            run_end += 1
        if run_end - run_start + 1 >= 4:
            c.in_toc = True
    for c in found:
        later = any(
            o.num == c.num and o.block > c.block and (o.part == c.part or not parts) for o in found
        )
        if c.in_toc and not later:
            c.in_toc = False  # nothing later to prefer: it's a real (short) section
    return [c for c in found if not c.in_toc]


def _heading_texts(blocks: list[Block], titles: dict[str, str] | None = None):
    """Paragraphs, plus the rows of small tables (old filings set headings in a table row).
    A table listing three or more items is a table of contents and offers nothing. With
    `titles`, a row that names an item by its title alone counts as well."""
    for i, b in enumerate(blocks):
        if b.kind == "text":
            yield i, b.text
        elif b.rows and len(b.rows) <= 6:
            rows = [" ".join(c for c in r if c) for r in b.rows]
            hits = [r for r in rows if _ITEM_RE.match(r) or (titles and _title_first(r, titles))]
            if len(hits) == 1:
                yield i, hits[0]


def _toc_end(blocks: list[Block]) -> int:
    """Index of the first block after a table of contents (a table listing 3+ items), or 0."""
    end = 0
    for i, b in enumerate(blocks):
        if (
            b.kind == "table"
            and sum(1 for r in b.rows or [] if any(_ITEM_RE.match(c) for c in r if c)) >= 3
        ):
            end = i + 1
            break
    return end


def _gap(blocks: list[Block], a: int, b: int) -> int:
    """Characters of content strictly between two heading blocks."""
    return sum(len(blocks[j].text) for j in range(a + 1, b))


def _part_headings(blocks: list[Block]) -> list[tuple[int, str]]:
    out = []
    for i, b in enumerate(blocks):
        if b.kind == "text" and len(b.text) <= 160:
            m = _PART_RE.match(b.text)
            if m and not _ITEM_RE.match(b.text) and not _TRAILING_PAGE_RE.search(b.text):
                part = m.group("part").upper()
                out.append((i, _PART_NAMES.get(part, part)))
    return out


def _best_chain(options: list[tuple[int, int, float]]) -> list[int]:
    """options: (block, order, weight) sorted by block. Max-weight chain, strictly increasing
    in both block and order; returns indexes into options."""
    n = len(options)
    best = [0.0] * n
    prev = [-1] * n
    for i, (block_i, order_i, w_i) in enumerate(options):
        best[i] = w_i
        for j in range(i):
            block_j, order_j, _ = options[j]
            if block_j < block_i and order_j < order_i and best[j] + w_i > best[i] + 1e-12:
                best[i] = best[j] + w_i
                prev[i] = j
    if not n:
        return []
    end = max(range(n), key=lambda i: (best[i], -i))
    chain = []
    while end != -1:
        chain.append(end)
        end = prev[end]
    return chain[::-1]


def detect_sections(blocks: list[Block], form: str | None) -> tuple[list[Section], list[str]]:
    """Sections of a primary document; a document with no recognizable items is one section."""
    family = form_family(form)
    warnings: list[str] = []
    if not blocks:
        return [], warnings
    n = len(blocks)
    if family == "10-K":
        titles = dict(TEN_K_ITEMS)
        order = {num: k for k, (num, _t) in enumerate(TEN_K_ITEMS)}
        cands = _candidates(blocks, titles)
        if len({c.num for c in cands}) < _MIN_NUMBERED_ITEMS:
            # Too few "Item N" headings to trust: read title-first headings as well.
            cands = _candidates(blocks, titles, title_first=True)
        options = [(c.block, order[c.num], c.weight - 1e-6 * c.block / n) for c in cands]
        labels = [f"10-K/Item {c.num}" for c in cands]
    elif family == "10-Q":
        titles = {num: t for _p, num, t in TEN_Q_ITEMS}
        part_order = {(p, num): k for k, (p, num, _t) in enumerate(TEN_Q_ITEMS)}
        titles_by_key = {(p, num): t for p, num, t in TEN_Q_ITEMS}
        parts = _part_headings(blocks)
        options, labels = [], []
        q_cands = _candidates(blocks, titles, parts)
        if len({c.num for c in q_cands}) < _MIN_NUMBERED_ITEMS:
            q_cands = _candidates(blocks, titles, parts, title_first=True)
        for c in q_cands:
            for part in ("I", "II"):
                if (part, c.num) not in part_order:
                    continue
                w = c.weight - 1e-6 * c.block / n
                hint = c.part
                if hint and hint != part:
                    w -= 0.6
                if not _title_matches(c.title, titles_by_key[(part, c.num)]):
                    w -= 0.2
                options.append((c.block, part_order[(part, c.num)], w))
                labels.append(f"10-Q/Part {part}/Item {c.num}")
    elif family == "8-K":
        items = EIGHT_K_ITEMS + LEGACY_EIGHT_K_ITEMS
        titles = dict(items)
        order = {num: k for k, (num, _t) in enumerate(items)}
        cands = _candidates(blocks, titles)
        options = [(c.block, order[c.num], c.weight - 1e-6 * c.block / n) for c in cands]
        labels = [f"8-K/Item {c.num}" for c in cands]
    else:
        return [Section(f"{family}/Document", 0, n)], warnings

    ranked = sorted(range(len(options)), key=lambda k: (options[k][0], options[k][1]))
    sorted_options = [options[k] for k in ranked]
    sorted_labels = [labels[k] for k in ranked]
    chosen = [(sorted_options[k][0], sorted_labels[k]) for k in _best_chain(sorted_options)]
    if not chosen:
        warnings.append(
            f"no {family} item headings recognized; the whole document is one section "
            f"'{family}/Document' (check that the form type is right)"
        )
        return [Section(f"{family}/Document", 0, n)], warnings
    if (
        family == "10-Q"
        and chosen[0][1] != "10-Q/Part I/Item 1"
        and chosen[0][1].startswith("10-Q/Part I/")
    ):
        # Some 10-Qs (Netflix's) go straight from the table of contents into the statements
        # without an "Item 1" heading: the statements still belong to Part I Item 1.
        start = _toc_end(blocks)
        if 0 < start < chosen[0][0]:
            chosen.insert(0, (start, "10-Q/Part I/Item 1"))
            warnings.append(
                "no 'Part I, Item 1' heading; Item 1 inferred to start after the table of contents"
            )
    sections: list[Section] = []
    if chosen[0][0] > 0:
        sections.append(Section(f"{family}/Cover", 0, chosen[0][0]))
    tail = _tail_sections(blocks, chosen[-1][0], family)
    end_of_items = tail[0].first if tail else n
    for k, (block, label) in enumerate(chosen):
        end = chosen[k + 1][0] if k + 1 < len(chosen) else end_of_items
        sections.append(Section(label, block, end))
    return sections + tail, warnings


_SIGNATURES_RE = re.compile(r"^\s*signatures?\s*:?\s*$", re.I)
_STATEMENTS_RE = re.compile(
    r"^\s*(?:index\s+to\s+(?:the\s+)?(?:consolidated\s+)?financial\s+statements"
    r"|report\s+of\s+independent\s+registered\s+public\s+accounting\s+firm)\b",
    re.I,
)


def _tail_sections(blocks: list[Block], last_item: int, family: str) -> list[Section]:
    """The signature page after the last item, and financial-statement pages filed after it
    (older 10-Ks put their F-pages there), as sections of their own rather than the tail of
    the last item."""
    n = len(blocks)
    signature = next(
        (
            i
            for i in range(last_item + 1, n)
            if blocks[i].kind == "text" and _SIGNATURES_RE.match(blocks[i].text)
        ),
        None,
    )
    if signature is None:
        return []
    statements = next(
        (
            i
            for i in range(signature + 1, n)
            if blocks[i].kind == "text" and _STATEMENTS_RE.match(blocks[i].text)
        ),
        None,
    )
    if statements is None or sum(len(b.text) for b in blocks[statements:]) < 2_000:
        return [Section(f"{family}/Signatures", signature, n)]
    return [
        Section(f"{family}/Signatures", signature, statements),
        Section(f"{family}/Financial Statements", statements, n),
    ]


def exhibit_label(form: str | None, document_type: str) -> str:
    """'EX-99.1' of an 8-K → '8-K/Exhibit 99.1'."""
    number = re.sub(r"^EX-?", "", document_type.upper())
    return f"{form_family(form)}/Exhibit {number}"
