"""Exhibit 21 in the layouts filers use (issue 22): every row that names a subsidiary comes out,
whichever column holds the name, and no place, header or note does. The corpus's three EX-21
exhibits (Apple, JPMorgan, Exxon Mobil) are read row by row; the other layouts are built from
the EX-21 conventions (nested indentation, jurisdiction-first and percent-first columns, group
rows by country, two lists side by side, plain-text lists with leaders or appositions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag_core.extraction.backends.base import ChunkInput
from graphrag_core.extraction.backends.rules_backend import RulesBackend
from graphrag_core.extraction.exhibit21 import exhibit21_table_rows, is_jurisdiction
from graphrag_core.text.parsing import parse_markup
from tests.conftest import corpus_file


@pytest.fixture(scope="module")
def rules() -> RulesBackend:
    return RulesBackend.from_rows([])


def _subsidiaries(rules: RulesBackend, text: str, kind: str) -> list[str]:
    chunk = ChunkInput("c", "f", "10-K/Exhibit 21", text, "0" * 64, None, "Acme Corp", kind=kind)
    return [t.subject for t in rules.triples(chunk) if t.relation == "SUBSIDIARY_OF"]


@pytest.mark.parametrize(
    ("table", "names"),
    [
        # nested indentation (leading spaces, non-breaking spaces) under country group rows
        (
            "| Name | Jurisdiction | Percent Owned |\n|---|---|---|\n| United States | | |\n"
            "| Acme Holdings, Inc. | Delaware | 100% |\n|   Acme Sales LLC | Ohio | 100% |\n"
            "| \u00a0\u00a0Acme Europe B.V. | Netherlands | 100 |\n| Germany | | |\n"
            "| Acme GmbH | Germany | 51% |",
            ["Acme Holdings, Inc.", "Acme Sales LLC", "Acme Europe B.V.", "Acme GmbH"],
        ),
        # the jurisdiction first, the name second
        (
            "| Jurisdiction | Name of Subsidiary |\n|---|---|\n| Delaware | Acme Holdings, Inc. |\n"
            "| Netherlands | Acme Europe B.V. |",
            ["Acme Holdings, Inc.", "Acme Europe B.V."],
        ),
        # the same without a header: a place is never the name
        (
            "| Delaware, U.S. | Acme Holdings, Inc. |\n|---|---|\n"
            "| England and Wales | Acme UK Ltd |",
            ["Acme Holdings, Inc.", "Acme UK Ltd"],
        ),
        # the percentage owned first
        (
            "| % Owned | Subsidiary | Organized in |\n|---|---|---|\n"
            "| 100 | Acme Holdings, Inc. | Delaware |\n| 51.0% | Acme Japan K.K. | Japan |",
            ["Acme Holdings, Inc.", "Acme Japan K.K."],
        ),
        # two lists side by side, jurisdictions in parentheses
        (
            "| Acme Holdings, Inc. (Delaware) | Acme Europe B.V. (Netherlands) |\n|---|---|\n"
            "| Acme Sales LLC (Ohio) | Acme Japan K.K. (Japan) |",
            ["Acme Holdings, Inc.", "Acme Europe B.V.", "Acme Sales LLC", "Acme Japan K.K."],
        ),
        # a description column is no second subsidiary
        (
            "| Acme Holdings, Inc. | Holding company | Delaware |\n|---|---|---|\n"
            "| Acme Sales LLC | Distribution | Ohio |",
            ["Acme Holdings, Inc.", "Acme Sales LLC"],
        ),
    ],
)
def test_every_row_of_an_exhibit_21_table_in_any_layout(rules, table, names):
    assert _subsidiaries(rules, table, "table") == names


def test_every_line_of_a_plain_text_exhibit_21_in_any_layout(rules):
    text = (
        "SUBSIDIARIES OF THE REGISTRANT\nAcme Holdings, Inc. (Delaware)\n"
        "    Acme Sales LLC (Ohio)\n        Acme Europe B.V. (Netherlands)\n"
        "Acme Japan K.K., a Japanese corporation\nAcme Partners, L.P., a Delaware limited "
        "partnership\nAcme Canada Ltd. - Canada\nAcme Brasil Ltda. .......... Brazil ......... "
        "100%\nDomestic Subsidiaries:\nForeign Subsidiaries\nUnited Kingdom\nAcme UK Limited"
    )
    assert _subsidiaries(rules, text, "prose") == [
        "Acme Holdings, Inc.",
        "Acme Sales LLC",
        "Acme Europe B.V.",
        "Acme Japan K.K.",
        "Acme Partners, L.P.",
        "Acme Canada Ltd.",
        "Acme Brasil Ltda.",
        "Acme UK Limited",
    ]


@pytest.mark.parametrize(
    ("cell", "place"),
    [
        ("Delaware", True),
        ("Delaware, U.S.", True),
        ("Russia/Kazakhstan", True),
        ("State of New York", True),
        ("England and Wales", True),
        ("The Netherlands", True),
        ("Georgia Power", False),
        ("Acme GmbH", False),
        ("Ancon Insurance Company Inc.", False),
        ("", False),
        ("   ", False),
        ("Delaware; DROP TABLE x", False),
        ("\u202eerawaleD", False),
    ],
)
def test_a_place_is_told_from_a_company(cell, place):
    assert is_jurisdiction(cell) is place


@pytest.mark.parametrize(
    "table",
    [
        "",
        "|",
        "|---|---|",
        "| | | |\n|---|---|---|\n| | | |",
        "| " + "A" * 5000 + " Inc. | Delaware |",
        "| nan | inf |\n| NaN | -inf |",
        "| '; DROP TABLE subsidiaries; -- | Delaware |",
    ],
)
def test_odd_tables_neither_fail_nor_invent_places_as_subsidiaries(table):
    for name, row in exhibit21_table_rows(table):
        assert name.strip() and row.strip()
        assert not is_jurisdiction(name)


@pytest.mark.parametrize(
    ("relative", "rows"),
    [
        ("AAPL/10-K/ex21_aapl.htm", 19),
        ("JPM/10-K/ex21_jpm.htm", 18),
        ("XOM/10-K/ex21_xom.htm", 116),
    ],
)
def test_every_row_of_the_corpus_exhibit_21s_comes_out(corpus_dir: Path, rules, relative, rows):
    html = corpus_file(corpus_dir, relative).read_text(encoding="utf-8", errors="replace")
    tables = [b.text for b in parse_markup(html, True).blocks if b.kind == "table"]
    found = []
    for table in tables:
        data = [
            line.strip()
            for line in table.split("\n")
            if line.strip().startswith("|") and not set(line.strip()) <= set("|-: ")
        ]
        read = exhibit21_table_rows(table)
        # every row but the header row names a subsidiary, and none is a place
        assert {row for _, row in read} == set(data[1:]) or {row for _, row in read} == set(
            data
        ) - {data[0]}
        assert not [name for name, _ in read if is_jurisdiction(name)]
        found += _subsidiaries(rules, table, "table")
    assert len(found) == rows
