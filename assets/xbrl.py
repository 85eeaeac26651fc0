"""xbrl_facts and metric_observations: inline XBRL → facts → canonical metrics, and an 8-K's
earnings release (EX-99 tables and sentences) → unaudited metrics; no model.

The work is `graphrag_core.xbrl`; this module wires it. Each partition's observations leave
`superseded_by` empty: restatements link observations of different filings, and quarters are
derived from year-to-date figures of several filings, which `graphrag_core.xbrl.supersession`
does over all partitions when a snapshot is gathered.
"""

import dagster as dg
import polars as pl

from assets.checks import check_spec, recorded_results
from assets.partitions import filings_partitions
from assets.pools import EDGAR_POOL
from assets.resources import DataRootResource, FilingSourceResource
from graphrag_core.tables.records import FilingMeta
from graphrag_core.xbrl.fact_checks import companyfacts_agree, inline_xbrl_yields_facts
from graphrag_core.xbrl.facts import extract_facts, stored_documents
from graphrag_core.xbrl.metrics import FilingInfo
from graphrag_core.xbrl.releases import observations_for_filing


@dg.asset(
    partitions_def=filings_partitions,
    io_manager_key="tables_io",
    group_name="xbrl",
    kinds={"polars", "parquet"},
    check_specs=[
        check_spec(
            "inline_xbrl_yields_facts",
            "xbrl_facts",
            blocking=True,
            description="a filing with inline XBRL yields at least one fact (none means arelle "
            "could not read it, and its numbers would be missing from the graph)",
        )
    ],
    description="Every inline-XBRL fact of the filing, read offline with arelle: concept, value "
    "with scale and sign applied, unit, decimals, period, dimensions, inline ids and the chunk "
    "that displays it (its table first). Duplicates collapse; contradictory ones are flagged; "
    "unusable facts are skipped and counted per reason in the metadata.",
)
def xbrl_facts(
    context: dg.AssetExecutionContext,
    raw_filings: pl.DataFrame,
    section_chunks: pl.DataFrame,
    data: dg.ResourceParam[DataRootResource],
):
    meta = FilingMeta.from_frame(raw_filings)
    store = data.store()
    documents = stored_documents(
        store.read("raw_filing_documents", context.partition_key), store.root
    )
    result = extract_facts(documents, meta.filing_id, meta.cik, section_chunks)
    for warning in result.warnings:
        context.log.warning(f"{context.partition_key}: {warning}")
    yield dg.Output(result.facts, metadata=result.metadata())
    verdict = inline_xbrl_yields_facts(meta, result.facts)
    yield from recorded_results(store, meta.filing_id, "xbrl_facts", [verdict])


@dg.asset(
    partitions_def=filings_partitions,
    io_manager_key="tables_io",
    group_name="xbrl",
    kinds={"polars", "parquet"},
    pool=EDGAR_POOL,  # the companyfacts cross-check reads SEC's companyfacts JSON
    check_specs=[
        check_spec(
            "companyfacts_agree",
            "metric_observations",
            blocking=False,
            description="the facts behind the observations agree with SEC's companyfacts for the "
            "same accession, within their precision (not judged when companyfacts is unavailable)",
        )
    ],
    description="Canonical metrics (revenue, net income, total debt, …) the filing reports, from "
    "its dimensionless XBRL facts through a documented concept mapping (and a company's own "
    "concepts its statements show to be capex or debt), and from an 8-K's earnings release "
    "tables and sentences (source_kind press_release, unaudited), each with the company's "
    "fiscal label, calendar range, fact or row, and citing chunk (REPORTS_METRIC).",
)
def metric_observations(
    context: dg.AssetExecutionContext,
    raw_filings: pl.DataFrame,
    xbrl_facts: pl.DataFrame,
    section_chunks: pl.DataFrame,
    data: dg.ResourceParam[DataRootResource],
    source: dg.ResourceParam[FilingSourceResource],
):
    meta = FilingMeta.from_frame(raw_filings)
    info = FilingInfo.from_meta(xbrl_facts, meta)
    result = observations_for_filing(xbrl_facts, section_chunks, info)
    for warning in result.warnings:
        context.log.warning(f"{context.partition_key}: {warning}")
    yield dg.Output(result.observations, metadata=result.metadata())
    reference = (
        source.companyfacts(meta.cik) if meta.cik and not result.observations.is_empty() else None
    )
    verdict = companyfacts_agree(meta, result.observations, xbrl_facts, reference)
    yield from recorded_results(data.store(), meta.filing_id, "metric_observations", [verdict])
