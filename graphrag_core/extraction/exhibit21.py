"""Exhibit 21, the list of subsidiaries, in whatever layout a filer gives it (issue 22): a table
whose name column is first, second or unmarked, with jurisdiction and percent-owned columns,
indent cells, group rows by country ("United States", "Foreign Subsidiaries"), two subsidiaries
side by side; or a plain-text list, one a line, indented under its parent, with the jurisdiction
in parentheses, after a run of spaces or dot leaders, or as an apposition ("…, a Delaware
corporation"). Every row that names a subsidiary comes out; a place, a header, a note does not.

Pure functions of text; the rules backend binds what they find to the filer."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from graphrag_core.common.names import is_legal_form

_I = re.I

# -- rows ---------------------------------------------------------------------------------

# The columns after a name in a plain-text list: its jurisdiction ("Delaware", "(Netherlands)"),
# an ownership share ("100%", "51.0"), separated by a tab, a run of spaces, dot leaders or a dash.
_COLUMN_GAP = re.compile(r"\t|\s{3,}|\s*\.{3,}\s*|\s+[-–—]\s+")
_FOOTNOTE = re.compile(r"(?:\s*(?:\(\d{1,2}\)|\([a-z]\)|\*+|[¹²³⁴⁵⁶⁷⁸⁹†‡§]))+\s*$")
_OWNERSHIP = re.compile(r"\s*\(?\d{1,3}(?:\.\d+)?\s?%?\)?\s*$")
# "(Delaware)", "(a Delaware limited partnership)"; not a legal form in parentheses ("(S.A.E.)").
_JURISDICTION_PAREN = re.compile(
    r"\s*\((?:an?\s+)?[A-Z][a-z]{2,}[\w.]*(?:\s+[A-Za-z][\w.]*){0,4}\)\s*$"
)
_ROW_HEADER = re.compile(
    r"^(?:name|jurisdiction|organized|percent(?:age)?|%|ownership|owned|state\s+or\s+|subsidiar|company|entity|legal\s+name|"
    r"december\s+\d|exhibit|list\s+of|the\s+following|as\s+of|omitted|pursuant|notes?\b)|\bname\s*$|:$"
    r"|\bsubsidiaries\b|\b(?:jurisdiction|incorporation)\b",
    _I,
)
# "Acme Japan K.K., a Japanese corporation", "Acme LP, a Delaware limited partnership".
_DESCRIPTOR_TAIL = re.compile(
    r",?\s+(?:an?\s+)(?:[A-Z][\w.\-]*\s+){1,3}(?:(?:general|limited|public|private|stock|"
    r"non-?profit|statutory)\s+)*(?:liability\s+)?(?:corporation|company|partnership|trust|"
    r"association|bank|entity|société|sociedad|gesellschaft)$",
)
_ROW_BULLET = re.compile(r"^\s*(?:[•●▪■·*\-–—]|\(?\d{1,3}[.)]|\(?[ivx]{1,4}[.)])\s+")


def exhibit21_name(cell: str) -> str | None:
    """The subsidiary named by one row of an Exhibit 21 (a table's first cell, or a line of a
    plain-text list): cleaned of the columns after it, footnote marks and ownership shares; None
    for a header, a note or a row naming nothing."""
    if _NOTE.match(cell):
        return None
    row = _ROW_BULLET.sub("", cell.replace("&nbsp;", " ").replace("\xa0", " ").strip())
    row = _COLUMN_GAP.split(row, maxsplit=1)[0]
    for _ in range(2):
        row = _FOOTNOTE.sub("", row)
        row = _OWNERSHIP.sub("", row) if re.search(r"[A-Za-z]", _OWNERSHIP.sub("", row)) else row
    if _JURISDICTION_PAREN.search(row) and not re.search(r"\((?:the\s+)?[“\"]", row):
        row = _JURISDICTION_PAREN.sub("", row)
    row = _DESCRIPTOR_TAIL.sub("", row).strip(" ,;:")
    if is_jurisdiction(row):
        return None
    # "iTunes K.K.", "eBay GmbH": a name may open on a lower-case letter before a capital.
    if (
        not row
        or _ROW_HEADER.search(row)
        or not re.search(r"[A-Za-z]{2}", row)
        or not re.match(r"[A-Z0-9]|[a-z][A-Z]", row)
    ):
        return None
    # A sentence of the exhibit ("Certain subsidiaries are omitted …"), not a row: a name has
    # at most one lower-case word besides its connectors and legal forms ("Wink to Webster
    # Pipeline LLC", "J.P. Morgan Securities plc", "… S.à r.l.").
    words = row.replace(",", " ").split()
    lower = [
        w
        for w in words
        if w[:1].islower()
        and w.lower() not in _NAME_CONNECTORS
        and "." not in w
        and not is_legal_form(w)
    ]
    if len(words) > 12 or len(lower) > 1:
        return None
    return row


_NAME_CONNECTORS = frozenset(
    {
        "of",
        "and",
        "de",
        "del",
        "des",
        "du",
        "la",
        "le",
        "the",
        "y",
        "e",
        "et",
        "van",
        "der",
        "von",
        "di",
        "do",
        "da",
        "für",
        "&",
    }
)
# A footnote under the list: its mark, then prose ("(1) Owned 51% by the Company.").
_NOTE = re.compile(
    r"^\s*(?:\(\d{1,2}\)|\([a-z]\)|\*+|[¹²³†‡])\s*[A-Z][a-z]+\s+(?:\S+\s+){0,2}?(?:by|is|are|was|were|has|have|owned|held|directly|indirectly)\s"
)


def exhibit21_names(text: str) -> list[tuple[str, str]]:
    """(name, line) of every subsidiary a plain-text Exhibit 21 lists, one a line."""
    out = []
    for line in text.split("\n"):
        if not line.strip() or line.lstrip().startswith("|"):
            continue
        name = exhibit21_name(line)
        if name is not None:
            out.append((name, line.strip()))
    return out


# -- places and tables --------------------------------------------------------------------------


@cache
def _jurisdictions() -> frozenset[str]:
    raw = (
        resources.files("graphrag_core.extraction")
        .joinpath("lexicon/jurisdictions.txt")
        .read_text(encoding="utf-8")
    )
    return frozenset(
        _place_key(line) for line in raw.splitlines() if line.strip() and line[0] != "#"
    )


def _place_key(text: str) -> str:
    return " ".join(text.replace(".", "").lower().split())


_PLACE_PREFIX = re.compile(
    r"^(?:the\s+)?(?:state|province|commonwealth|kingdom|grand\s+duchy|emirate)\s+of\s+", _I
)
_PLACE_SPLIT = re.compile(r"\s*(?:,|/|;|\band\b|\bor\b|[-–—]|\(|\))\s*", _I)


def is_jurisdiction(cell: str) -> bool:
    """Is the cell a place (a jurisdiction column, a group row), not a company: "Delaware",
    "Delaware, U.S.", "Russia/Kazakhstan", "State of New York", "England and Wales"?"""
    places = _jurisdictions()
    text = _PLACE_PREFIX.sub("", cell.strip().strip(" .:*"))
    if not text:
        return False
    if _place_key(text) in places:
        return True
    parts = [_place_key(_PLACE_PREFIX.sub("", p)) for p in _PLACE_SPLIT.split(text)]
    parts = [p for p in parts if p]
    return bool(parts) and all(p in places for p in parts)


# A header cell that says which column holds the subsidiary's name.
_NAME_HEADER = re.compile(r"\b(?:name|subsidiar(?:y|ies)|entity|entities|company|companies)\b", _I)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _a_second_name(name: str) -> bool:
    """Can a cell after a row's name be a second subsidiary (two lists side by side) rather than
    a description ("Holding company")? It ends on a legal form or is capitalized throughout."""
    words = name.replace(",", " ").split()

    def named(w: str) -> bool:
        # "plc", "mbH": legal forms written in lower case; "company" in lower case is a noun
        return (
            w[:1].isupper()
            or w.lower() in _NAME_CONNECTORS
            or (is_legal_form(w) and w.lower() not in _LOWER_CASE_NOUNS)
        )

    return all(named(w) for w in words) and (len(words) >= 2 or is_legal_form(words[-1]))


_LOWER_CASE_NOUNS = frozenset(
    "company corporation limited incorporated partnership trust bank association".split()
)


def exhibit21_table_rows(table: str) -> list[tuple[str, str]]:
    """(name, row) of every subsidiary an Exhibit 21 table lists, whichever column holds the
    names: the column a header names, else each row's first cell that is a name and not a place,
    a percentage or blank; a second name with a legal form in the same row (two lists side by
    side) is a subsidiary too."""
    rows = [
        line.strip()
        for line in table.split("\n")
        if line.strip().startswith("|") and not set(line.strip()) <= set("|-: ")
    ]
    name_column: int | None = None
    out: list[tuple[str, str]] = []
    for row in rows:
        cells = _cells(row)
        header = [c for c in cells if c and _ROW_HEADER.search(c) and exhibit21_name(c) is None]
        if header and not out:
            named = [k for k, c in enumerate(cells) if _NAME_HEADER.search(c)]
            if named:
                name_column = named[0]
            continue
        names: list[str] = []
        if name_column is not None and name_column < len(cells):
            first = exhibit21_name(cells[name_column])
            if first is not None:
                names.append(first)
        for cell in cells:
            name = exhibit21_name(cell) if cell else None
            if name is None or name in names:
                continue
            if not names or _a_second_name(name):
                names.append(name)
        out += [(n, row) for n in names]
    return out
