"""xbrl_facts and metric_observations: inline XBRL → facts → canonical metrics, and an 8-K's
earnings release (EX-99 tables and sentences) → unaudited metrics; no model.

The work is `graphrag_core.xbrl`; this module wires it. Each partition's observations leave
`superseded_by` empty: restatements link observations of different filings, and quarters are
derived from year-to-date figures of several filings, which `graphrag_core.xbrl.supersession`
does over all partitions when a snapshot is gathered.
"""

import dagster as dg
import polars as pl

from assets.partitions import filings_partitions
from assets.resources import DataRootResource
from graphrag_core.tables.records import FilingMeta
from graphrag_core.xbrl.facts import extract_facts, stored_documents
from graphrag_core.xbrl.metrics import FilingInfo
from graphrag_core.xbrl.releases import observations_for_filing


@dg.asset(
    partitions_def=filings_partitions,
    io_manager_key="tables_io",
    group_name="xbrl",
    kinds={"polars", "parquet"},
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
) -> dg.Output[pl.DataFrame]:
    meta = FilingMeta.from_frame(raw_filings)
    store = data.store()
    documents = stored_documents(store.read("raw_filing_documents", context.partition_key), store.root)
    result = extract_facts(documents, meta.filing_id, meta.cik, section_chunks)
    for warning in result.warnings:
        context.log.warning(f"{context.partition_key}: {warning}")
    return dg.Output(result.facts, metadata=result.metadata())


@dg.asset(
    partitions_def=filings_partitions,
    io_manager_key="tables_io",
    group_name="xbrl",
    kinds={"polars", "parquet"},
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
) -> dg.Output[pl.DataFrame]:
    info = FilingInfo.from_meta(xbrl_facts, FilingMeta.from_frame(raw_filings))
    result = observations_for_filing(xbrl_facts, section_chunks, info)
    for warning in result.warnings:
        context.log.warning(f"{context.partition_key}: {warning}")
    return dg.Output(result.observations, metadata=result.metadata())
