"""The corpus's XBRL facts and metric observations, extracted once per test session.

arelle takes about half a second per 10-K; the XBRL, metrics and cross-check tests all read
the same corpus, so they share one extraction (cached per corpus path, in-process)."""

from __future__ import annotations

import functools
import tempfile
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.intake.raw_filing import ingest_filing
from graphrag_core.tables.records import FilingRef
from graphrag_core.tables.table_store import TableStore
from graphrag_core.text.filing_chunks import chunk_filing
from graphrag_core.xbrl.arelle_loader import XbrlDocument
from graphrag_core.xbrl.facts import FactExtraction, extract_facts
from graphrag_core.xbrl.metrics import FilingInfo, MetricExtraction, observations_from_facts
from graphrag_core.xbrl.supersession import link_observations


@dataclass
class CorpusFiling:
    ref: FilingRef
    xbrl: FactExtraction
    metrics: MetricExtraction

    @property
    def facts(self) -> pl.DataFrame:
        return self.xbrl.facts.with_columns(
            form=pl.lit(self.ref.form), ticker=pl.lit(self.ref.ticker)
        )


def _documents(ref: FilingRef) -> list[XbrlDocument]:
    return [
        XbrlDocument(d.location, Path(d.location).read_bytes(), Path(d.location))
        for d in ref.documents
    ]


def extract(ref: FilingRef, chunks: pl.DataFrame | None = None) -> CorpusFiling:
    xbrl = extract_facts(_documents(ref), ref.filing_id, ref.cik, chunks)
    info = FilingInfo.from_facts(
        xbrl.facts,
        ref.filing_id,
        cik=ref.cik,
        form=ref.form,
        filed_date=ref.filed_date,
        period_end=ref.period_end,
    )
    return CorpusFiling(ref=ref, xbrl=xbrl, metrics=observations_from_facts(xbrl.facts, info))


@functools.cache
def corpus_refs(corpus: Path) -> dict[str, FilingRef]:
    return {ref.filing_id: ref for ref in LocalFolderSource(corpus).discover()}


@functools.cache
def corpus_filings(corpus: Path) -> dict[str, CorpusFiling]:
    """Every corpus filing, extracted without chunks (chunk ids are tested on NVIDIA alone)."""
    return {fid: extract(ref) for fid, ref in corpus_refs(corpus).items()}


@functools.cache
def corpus_observations(corpus: Path) -> pl.DataFrame:
    """All filings' observations linked as the snapshot links them: supersession, with reasons,
    and the quarters derived from year-to-date figures."""
    frames = [
        f.metrics.observations
        for f in corpus_filings(corpus).values()
        if f.metrics.observations.height
    ]
    return link_observations(pl.concat(frames))


@functools.cache
def chunked(corpus: Path, filing_id: str) -> tuple[CorpusFiling, pl.DataFrame]:
    """A filing run through intake and chunking (the lead's stages), then extracted with its
    chunks, the way the assets chain them."""
    ref = corpus_refs(corpus)[filing_id]
    store = TableStore(tempfile.mkdtemp(prefix="xbrl-chunks-"))
    source = LocalFolderSource(corpus)
    raw = ingest_filing(ref, source.fetch(ref), store)
    chunks = chunk_filing(raw.meta, raw.documents, store).chunks
    return extract(ref, chunks), chunks


def by_path(corpus: Path, relative: str) -> CorpusFiling:
    """The filing whose primary document is `filings/<relative>`."""
    target = (corpus / "filings" / relative).resolve()
    for filing in corpus_filings(corpus).values():
        if Path(filing.ref.documents[0].location).resolve() == target:
            return filing
    raise KeyError(relative)


@functools.cache
def one_filing(corpus: Path, relative: str) -> CorpusFiling:
    """The filing whose primary document is `filings/<relative>`, extracted alone (a test that
    needs one or two filings does not pay for the whole corpus)."""
    target = (corpus / "filings" / relative).resolve()
    for ref in corpus_refs(corpus).values():
        if Path(ref.documents[0].location).resolve() == target:
            return extract(ref)
    raise KeyError(relative)
