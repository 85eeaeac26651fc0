"""EdgarSource end to end against the loopback EDGAR server: discovery from submissions JSON
(the real files of NVDA, AAPL and TSLA; synthesized ones for other corpus companies), fetching,
and the cache on a second run."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphrag_core.common.errors import ConfigurationError, FilingError
from graphrag_core.intake.edgar import EdgarNotFoundError, EdgarSource
from graphrag_core.intake.sources import FilingSource
from graphrag_core.tables.records import DocumentRef, FilingRef
from tests.edgar_server import (  # noqa: F401 - the *_fixture names register pytest fixtures
    FAKE_FILER_PREFIX,
    EdgarTestServer,
    edgar_server_fixture,
    edgar_server_session_fixture,
    sha256_of,
)

# Newest four 10-Ks and 10-Qs per company, read by hand from the real submissions files in
# ../shared/corpus/reference/submissions (newest snapshot of each company).
EXPECTED = {
    ("AAPL", "10-K"): [
        "0000320193-25-000079",
        "0000320193-24-000123",
        "0000320193-23-000106",
        "0000320193-22-000108",
    ],
    ("AAPL", "10-Q"): [
        "0000320193-26-000006",
        "0000320193-25-000073",
        "0000320193-25-000057",
        "0000320193-25-000008",
    ],
    ("NVDA", "10-K"): [
        "0001045810-26-000021",
        "0001045810-25-000023",
        "0001045810-24-000029",
        "0001045810-23-000017",
    ],
    ("NVDA", "10-Q"): [
        "0001045810-25-000230",
        "0001045810-25-000209",
        "0001045810-25-000116",
        "0001045810-24-000316",
    ],
    ("TSLA", "10-K"): [
        "0001628280-26-003952",
        "0001628280-25-003063",
        "0001628280-24-002390",
        "0000950170-23-001409",
    ],
    ("TSLA", "10-Q"): [
        "0001628280-25-045968",
        "0001628280-25-035806",
        "0001628280-25-018911",
        "0001628280-24-043486",
    ],
}
# Discovered filings whose documents the corpus holds (and the server can serve).
IN_CORPUS = [
    "0000320193-24-000123",
    "0000320193-25-000057",
    "0000320193-25-000073",
    "0001045810-23-000017",
    "0001045810-25-000023",
    "0001045810-25-000209",
    "0001628280-25-003063",
    "0001628280-25-035806",
]


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "edgar-cache"


def make_source(server: EdgarTestServer, cache_dir: Path, **settings) -> EdgarSource:
    return EdgarSource.from_settings(server.settings(**settings), cache_dir)


@pytest.fixture
def watchlist_refs(edgar_server: EdgarTestServer, cache_dir: Path) -> Iterator[list[FilingRef]]:
    with make_source(edgar_server, cache_dir, forms=("10-K", "10-Q")) as source:
        yield source.discover()


def test_is_a_filing_source(edgar_server: EdgarTestServer, cache_dir: Path) -> None:
    with make_source(edgar_server, cache_dir) as source:
        assert isinstance(source, FilingSource)
        assert source.kind == "edgar"


def test_discovers_newest_filings_per_form(watchlist_refs: list[FilingRef]) -> None:
    found: dict[tuple[str, str], list[FilingRef]] = {}
    for ref in watchlist_refs:
        found.setdefault((ref.ticker, ref.form), []).append(ref)
    newest_first = {
        key: [r.accession for r in sorted(refs, key=lambda r: r.filed_date, reverse=True)]
        for key, refs in found.items()
    }
    assert newest_first == EXPECTED
    assert [r.filing_id for r in watchlist_refs] == sorted(r.filing_id for r in watchlist_refs)


def test_filing_refs_carry_submissions_metadata(
    watchlist_refs: list[FilingRef], edgar_server: EdgarTestServer
) -> None:
    by_id = {ref.filing_id: ref for ref in watchlist_refs}
    nvda = by_id["0001045810-25-000023"]
    assert nvda.model_dump(exclude={"documents"}) == {
        "filing_id": "0001045810-25-000023",
        "source_kind": "edgar",
        "cik": "0001045810",
        "ticker": "NVDA",
        "company": "NVIDIA CORP",
        "form": "10-K",
        "period_end": dt.date(2025, 1, 26),
        "filed_date": dt.date(2025, 2, 26),
        "accession": "0001045810-25-000023",
    }
    assert nvda.documents == (
        DocumentRef(
            document_type="10-K",
            filename="nvda-20250126.htm",
            location=edgar_server.url(
                "/Archives/edgar/data/1045810/000104581025000023/nvda-20250126.htm"
            ),
        ),
    )
    tsla_q = by_id["0001628280-25-035806"]
    assert (tsla_q.company, tsla_q.form, tsla_q.period_end, tsla_q.filed_date) == (
        "Tesla, Inc.",
        "10-Q",
        dt.date(2025, 6, 30),
        dt.date(2025, 7, 24),
    )


def test_fetched_bytes_match_the_corpus(
    watchlist_refs: list[FilingRef], edgar_server: EdgarTestServer, cache_dir: Path
) -> None:
    by_id = {ref.filing_id: ref for ref in watchlist_refs}
    assert set(IN_CORPUS) <= set(by_id)
    with make_source(edgar_server, cache_dir) as source:
        for accession in IN_CORPUS:
            (doc, data), *exhibits = source.fetch(by_id[accession])
            assert not exhibits
            expected = edgar_server.filing(accession).primary
            assert doc.filename == expected.filename
            assert sha256_of(data) == expected.sha256, accession


def test_fetching_a_document_edgar_lacks_names_its_url(
    watchlist_refs: list[FilingRef], edgar_server: EdgarTestServer, cache_dir: Path
) -> None:
    # Apple's 2025 10-K is listed in the real submissions file but is not in the corpus.
    ref = next(r for r in watchlist_refs if r.accession == "0000320193-25-000079")
    with make_source(edgar_server, cache_dir) as source:
        with pytest.raises(EdgarNotFoundError) as raised:
            source.fetch(ref)
    assert ref.documents[0].location in str(raised.value)
    assert isinstance(raised.value, FilingError), "fails that filing's partition only"


def test_8k_brings_its_ex99_exhibits(edgar_server: EdgarTestServer, cache_dir: Path) -> None:
    with make_source(edgar_server, cache_dir, watchlist=("ABVC",), forms=("8-K",)) as source:
        (ref,) = source.discover()
        fetched = source.fetch(ref)
    served = edgar_server.filing("0001213900-25-032135")
    assert (ref.accession, ref.form, ref.filed_date) == (
        "0001213900-25-032135",
        "8-K",
        dt.date(2025, 4, 15),
    )
    assert [(d.document_type, d.filename) for d in ref.documents] == [
        ("8-K", "ea0238372-8k_abvcbio.htm"),
        ("EX-99.1", "ea023837201ex99-1_abvcbio.htm"),
    ]
    assert [sha256_of(data) for _, data in fetched] == [d.sha256 for d in served.documents]
    assert [d for d, _ in fetched] == list(ref.documents), "primary first"


def test_since_keeps_only_newer_filings(edgar_server: EdgarTestServer, cache_dir: Path) -> None:
    since = dt.date(2025, 8, 1)
    with make_source(edgar_server, cache_dir, watchlist=("NVDA",)) as source:
        refs = source.discover(since=since)
    assert refs and all(ref.filed_date >= since for ref in refs)
    assert {r.accession for r in refs if r.form != "8-K"} == {
        "0001045810-25-000209",
        "0001045810-25-000230",
        "0001045810-26-000021",
    }
    # Five 8-Ks were filed on/after the date; the newest four are kept.
    eight_ks = sorted((r for r in refs if r.form == "8-K"), key=lambda r: r.filed_date)
    assert [r.accession for r in eight_ks] == [
        "0001045810-25-000207",
        "0001045810-25-000228",
        "0001045810-26-000003",
        "0001045810-26-000019",
    ]


def test_amendments_only_when_listed(edgar_server: EdgarTestServer, cache_dir: Path) -> None:
    amendment = "0001104659-25-042659"  # Tesla's 10-K/A of 2025-04-30 (Part III)
    with make_source(edgar_server, cache_dir, watchlist=("TSLA",), forms=("10-K",)) as source:
        assert amendment not in {r.accession for r in source.discover()}
    with make_source(
        edgar_server, cache_dir, watchlist=("TSLA",), forms=("10-K", "10-K/A")
    ) as source:
        amended = [r for r in source.discover() if r.accession == amendment]
    assert [r.form for r in amended] == ["10-K/A"]


def test_older_submission_pages_are_read(edgar_server: EdgarTestServer, cache_dir: Path) -> None:
    """IBM's synthesized submissions keep only the newest filing in `recent` (the server's
    recent_limit=1); its 10-K sits on page 001 and must still be found."""
    with make_source(edgar_server, cache_dir, watchlist=("IBM",), forms=("10-K", "10-Q")) as source:
        refs = {ref.form: ref for ref in source.discover()}
        fetched = {form: source.fetch(ref)[0][1] for form, ref in refs.items()}
    assert set(refs) == {"10-K", "10-Q"}
    assert edgar_server.requests("/submissions/CIK0000051143-submissions-001.json")
    for form, ref in refs.items():
        served = edgar_server.filing(ref.accession)
        assert ref.accession.startswith(FAKE_FILER_PREFIX)  # IBM's corpus files have none
        assert served.form == form
        assert sha256_of(fetched[form]) == served.primary.sha256
    assert refs["10-K"].period_end == dt.date(2024, 12, 31)


def test_pages_are_not_read_when_recent_suffices(
    edgar_server: EdgarTestServer, cache_dir: Path
) -> None:
    with make_source(
        edgar_server, cache_dir, watchlist=("IBM",), forms=("10-Q",), max_filings_per_company=1
    ) as source:
        (ref,) = source.discover()
    assert ref.form == "10-Q"
    assert not edgar_server.requests("/submissions/CIK0000051143-submissions-001.json")


def test_watchlist_takes_ciks_and_skips_unknown_tickers(
    edgar_server: EdgarTestServer, cache_dir: Path, caplog
) -> None:
    watchlist = ("CIK0000786344", "NOSUCHTICKER", "nvda")
    caplog.set_level(logging.WARNING, logger="graphrag_core.intake.edgar.edgar_source")
    with make_source(edgar_server, cache_dir, watchlist=watchlist, forms=("10-K",)) as source:
        companies, missing = source.resolve_watchlist()
        refs = source.discover()
    assert [(c.cik, c.ticker) for c in companies] == [("0000786344", None), ("0001045810", "NVDA")]
    assert missing == ["NOSUCHTICKER"]
    assert "NOSUCHTICKER" in caplog.text
    old = next(r for r in refs if r.cik == "0000786344")
    assert (old.accession, old.form, old.ticker) == ("0001193125-10-073212", "10-K", None)


def test_watchlist_with_nothing_known_is_a_configuration_error(
    edgar_server: EdgarTestServer, cache_dir: Path
) -> None:
    with make_source(edgar_server, cache_dir, watchlist=("NOSUCH", "NOPE")) as source:
        with pytest.raises(ConfigurationError, match="EDGAR_WATCHLIST"):
            source.discover()


def test_second_run_makes_no_requests(edgar_server: EdgarTestServer, cache_dir: Path) -> None:
    def run() -> tuple[list[FilingRef], list[bytes]]:
        with make_source(edgar_server, cache_dir, watchlist=("NVDA", "ABVC")) as source:
            refs = source.discover()
            wanted = [r for r in refs if r.accession in IN_CORPUS or r.cik == "0001173313"]
            return refs, [data for ref in wanted for _, data in source.fetch(ref)]

    first = run()
    sent = len(edgar_server.requests())
    assert sent > 0
    second = run()
    assert len(edgar_server.requests()) == sent, "the re-run asked the server again"
    assert second == first


def test_reference_data(edgar_server: EdgarTestServer, cache_dir: Path) -> None:
    with make_source(edgar_server, cache_dir) as source:
        rows = source.company_tickers()
        assert {"cik": "0000320193", "ticker": "AAPL", "title": "Apple Inc."} in rows
        assert source.submissions("320193")["name"] == "Apple Inc."
        assert source.submissions("0000000001") is None


def test_refuses_to_fetch_a_local_ref(edgar_server: EdgarTestServer, cache_dir: Path) -> None:
    local = FilingRef(
        filing_id="sha-0123456789abcdef",
        source_kind="local",
        documents=(DocumentRef(document_type="10-K", filename="x.htm", location="/tmp/x.htm"),),
    )
    with make_source(edgar_server, cache_dir) as source:
        with pytest.raises(FilingError, match="source_kind"):
            source.fetch(local)
