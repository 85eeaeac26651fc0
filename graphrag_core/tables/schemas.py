"""One schema per working table: the contract between stages.

Column names live here once; stages build frames through `empty()` / `frame()` so a typo becomes
a schema error at the boundary instead of a silent null column downstream. Table names are the
names of the assets that own them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import polars as pl

# A column's type as the schemas write it: a Polars type class (`pl.String`) or an instance
# (`pl.List(pl.String)`).
ColumnType = pl.DataType | type[pl.DataType]
Schema = dict[str, ColumnType]

FILINGS: Schema = {
    "filing_id": pl.String,
    "accession": pl.String,
    "cik": pl.String,
    "ticker": pl.String,
    "company": pl.String,
    "form": pl.String,
    "period_end": pl.Date,
    "fiscal_year": pl.Int32,
    "fiscal_period": pl.String,
    "fiscal_year_end": pl.String,
    "filed_date": pl.Date,
    "source": pl.String,
    "sha256": pl.String,
    "bytes": pl.Int64,
    "documents": pl.Int32,
    "is_inline_xbrl": pl.Boolean,
    "meta_sources": pl.String,  # JSON object: field -> where its value came from
    "warnings": pl.List(pl.String),
}

DOCUMENTS: Schema = {
    "filing_id": pl.String,
    "document_type": pl.String,
    "filename": pl.String,
    "source": pl.String,
    "raw_path": pl.String,  # relative to the data root
    "sha256": pl.String,
    "bytes": pl.Int64,
    "encoding": pl.String,
    "is_inline_xbrl": pl.Boolean,
}

CHUNKS: Schema = {
    "chunk_id": pl.String,
    "filing_id": pl.String,
    "document_type": pl.String,
    "section": pl.String,
    "kind": pl.String,  # prose | table | turn | qa
    "ordinal": pl.Int32,  # position within its section
    "text": pl.String,
    "char_start": pl.Int64,
    "char_end": pl.Int64,
    "scale_header": pl.String,
    "token_count": pl.Int32,
    "sha256": pl.String,
    "ix_ids": pl.List(pl.String),  # ids of inline-XBRL facts displayed inside the chunk
    # Spans within `text` of the paragraphs' emphasized openings (bold/italic/underlined): a
    # heading ("Competition could harm our business."), or a run-in heading ("Competition.").
    "headings": pl.List(pl.Struct({"start": pl.Int32, "end": pl.Int32})),
}


def empty(schema: Mapping[str, ColumnType]) -> pl.DataFrame:
    return pl.DataFrame(schema=dict(schema))


def frame(rows: Iterable[Mapping], schema: Mapping[str, ColumnType]) -> pl.DataFrame:
    """Rows → a frame with exactly the schema's columns, in its order, with its types."""
    rows = list(rows)
    if not rows:
        return empty(schema)
    unknown = set().union(*(r.keys() for r in rows)) - set(schema)
    if unknown:
        raise ValueError(f"columns not in the schema: {sorted(unknown)}")
    return pl.DataFrame(rows, schema=dict(schema), strict=False).select(list(schema))


# Columns appended to a table's schema after partitions were written without them: such a
# partition reads them as null (nothing upstream needs re-materializing to read it).
ADDED_COLUMNS: dict[str, tuple[str, ...]] = {"validated_triples": ("method", "confidence")}


def with_added_columns(
    df: pl.DataFrame, table: str, schema: Mapping[str, ColumnType]
) -> pl.DataFrame:
    """`df` with `table`'s later-added columns it lacks, as nulls of their type."""
    missing = [
        pl.lit(None, dtype=schema[c]).alias(c)
        for c in ADDED_COLUMNS.get(table, ())
        if c not in df.columns
    ]
    return df.with_columns(missing) if missing else df


def conform(df: pl.DataFrame, schema: Mapping[str, ColumnType]) -> pl.DataFrame:
    missing = [c for c in schema if c not in df.columns]
    if missing:
        raise ValueError(f"frame lacks columns {missing}")
    return df.select([pl.col(c).cast(t) for c, t in schema.items()])


XBRL_FACTS: Schema = {
    "fact_id": pl.String,  # deterministic: hash of filing id + concept + context + unit
    "filing_id": pl.String,
    "cik": pl.String,
    "concept": pl.String,  # QName, e.g. us-gaap:Revenues
    "value": pl.Float64,  # scale and sign applied
    "value_text": pl.String,  # the value as displayed
    # the XBRL value after the ix transform: 130497000000, --01-26, 2025-01-26
    "normalized": pl.String,
    "is_numeric": pl.Boolean,  # ix:nonFraction (value set) vs ix:nonNumeric (value null)
    "unit": pl.String,  # e.g. USD, shares, USD/shares
    "decimals": pl.Int32,  # null = INF
    "period_type": pl.String,  # duration | instant
    "period_start": pl.Date,  # null for instants
    "period_end": pl.Date,  # inclusive end date; the date itself for instants
    "dimensions": pl.String,  # JSON object axis -> member, "{}" for the consolidated entity
    "dimension_count": pl.Int32,
    "inline_id": pl.String,  # id of the first ix element that displays it
    "inline_ids": pl.List(pl.String),
    "source_document": pl.String,  # the document of the filing the fact was read from
    "html_tables": pl.List(pl.Int32),  # ordinals of the HTML tables showing it (statement lines)
    "chunk_id": pl.String,  # table chunk that displays it (else the prose chunk), null if hidden
    "duplicate_count": pl.Int32,
    "conflict": pl.Boolean,  # duplicates disagree on the value
    "conflict_values": pl.List(pl.String),  # the distinct displayed values when they disagree
    # Its first display in a table (html_tables[0]): the row's position in that table and the
    # row's label as shown ("Purchases related to property and equipment"); null when hidden.
    "table_row": pl.Int32,
    "row_label": pl.String,
    # Every display in a table, in document order: the table, the row inside it and the row's
    # label (a cash-flow statement shows an instant twice: the year's end, the next one's start).
    "table_places": pl.List(pl.Struct({"table": pl.Int32, "row": pl.Int32, "label": pl.String})),
}


METRIC_OBSERVATIONS: Schema = {
    "observation_id": pl.String,
    "cik": pl.String,
    "metric": pl.String,  # canonical id: revenue, net_income, total_debt, ...
    "value": pl.Float64,
    "unit": pl.String,
    "fiscal_label": pl.String,  # FY2025, Q2-FY2025, 9M-FY2025, or the instant's label
    "fiscal_year": pl.Int32,
    "fiscal_period": pl.String,  # FY, Q1..Q4, H1, 9M, or FY/Qn for an instant at that period end
    "period_type": pl.String,  # duration | instant
    "calendar_start": pl.Date,  # inclusive; equals calendar_end for instants
    "calendar_end": pl.Date,  # inclusive
    "filing_id": pl.String,
    "form": pl.String,
    "filed_date": pl.Date,
    "fact_id": pl.String,  # the fact reported (total_debt: its first component)
    "fact_ids": pl.List(pl.String),  # every fact it rests on (total_debt: all its components)
    "concept": pl.String,  # total_debt: its components joined with " + "
    "chunk_id": pl.String,
    "superseded_by": pl.String,  # observation_id of the next newer filing's observation of the
    # same company, metric, period and unit; null when newest (metrics.apply_supersession)
    "restated": pl.Boolean,  # the value differs from the older observation this one replaced
    # Where the number comes from (issue 14). xbrl: a tagged fact of a 10-K/10-Q (or any inline
    # filing); press_release: a table or sentence of an earnings release (EX-99), unaudited.
    "source_kind": pl.String,
    "derived": pl.Boolean,  # computed from other observations (Q4 = FY − 9M, gross profit = ...)
    "derivation": pl.String,  # the formula with its operands' labels, e.g. "FY2024 − 9M-FY2024"
    "derived_from": pl.List(pl.String),  # observation ids of every operand (each one cited)
    # How the line was recognised when not by a us-gaap concept: an extension concept's label and
    # statement, or the release row / sentence that states it.
    "mapping_rule": pl.String,
    # What this observation's own filing says about a recast of it: a stock split, an adopted
    # accounting standard, a reclassification, a discontinued operation, an error correction.
    "recast_evidence": pl.String,
    "shares_basis": pl.Float64,  # per-share values: diluted weighted-average shares of the period
    "supersede_reason": pl.String,  # why superseded_by replaced it: restatement | recast |
    # press_release_final | unknown; null while newest or when the value was only repeated
    "supersede_detail": pl.String,  # the evidence: split ratio, standard, the difference found
    # Per-share values and share counts on the latest stock split's basis (xbrl.splits): `value`
    # stays as filed; null when no split applies to the row's unit or its filing cannot be placed.
    "split_adjusted_value": pl.Float64,
    "split_basis": pl.String,  # the basis in words: as filed, or re-based and by which split(s)
}


EXTRACTIONS: Schema = {
    "extraction_id": pl.String,  # hash of chunk id + backend + model + prompt version
    "filing_id": pl.String,
    "chunk_id": pl.String,
    "chunk_sha256": pl.String,
    "section": pl.String,
    "backend": pl.String,  # rules | openai
    "model": pl.String,
    # prompt file name @ hash of prompt + schema (rules: rule set version)
    "prompt_version": pl.String,
    "status": pl.String,  # ok | parse_error (raw text kept) | failed (no reply after retries)
    "raw_output": pl.String,  # the reply exactly as received
    "error": pl.String,
    "triple_count": pl.Int32,  # candidates in the reply; null unless status is ok
    "attempts": pl.Int32,  # requests made, retries included (0 when served from the cache)
    "latency_ms": pl.Float64,  # of the successful request, as first measured
    "prompt_tokens": pl.Int32,
    "completion_tokens": pl.Int32,
    "cached": pl.Boolean,  # served from the extraction cache: no model call
}

EVIDENCE = pl.Struct(
    {
        "chunk_id": pl.String,
        "quote": pl.String,  # as it stands in the chunk (accepted) or as proposed (rejected)
        "char_start": pl.Int64,  # span in the filing's normalized text; null when not found
        "char_end": pl.Int64,
    }
)

VALIDATED_TRIPLES: Schema = {
    "triple_id": pl.String,  # accepted: hash of filing + subject + relation + object + period
    "filing_id": pl.String,
    "status": pl.String,  # accepted | rejected
    # rejection reason code (graphrag_core.validation.Reason); null if accepted
    "reason": pl.String,
    "detail": pl.String,  # what exactly failed, for the person reading the rejection
    "adjustment": pl.String,  # e.g. hypothetical_to_risk when a gate rewrote the relation
    "subject": pl.String,
    "relation": pl.String,
    "object": pl.String,
    "proposed_relation": pl.String,  # the relation as the backend proposed it
    "value": pl.Float64,
    "unit": pl.String,
    "period": pl.String,
    "value_conflict": pl.Boolean,  # merged duplicates stated different values (the first is kept)
    "support": pl.Int32,  # candidate triples this row stands for (merged duplicates; 1 if rejected)
    "evidence": pl.List(EVIDENCE),  # union of the merged duplicates' evidence
    "extraction_ids": pl.List(pl.String),
    "backend": pl.String,
    "model": pl.String,
    "prompt_version": pl.String,
    # A guided range ("between $151.0 billion and $155.5 billion"): its bounds; `value` is null.
    "value_low": pl.Float64,
    "value_high": pl.Float64,
    # Where the triple came from (issue 22; appended last, a partition written before them reads
    # them as null: `with_added_columns`). `method`: the rule family (rule:supplies,
    # rule:continuation, …), learned, or an LLM backend's name; merged duplicates: the set of
    # their methods, sorted and comma-joined. `confidence`: the classifier's probability, null
    # for a rule; merged duplicates: the highest.
    "method": pl.String,
    "confidence": pl.Float64,
}


# -- the graph stage (resolved_entities, knowledge_graph) -------------------------------------
# What the filings claim, one row per piece of evidence, before resolution: an accepted triple's
# quote (source "text") or a metric observation (source "xbrl", REPORTS_METRIC).
CLAIMS: Schema = {
    "claim_id": pl.String,  # hash of the triple (or observation) and its evidence span
    "filing_id": pl.String,
    "filer_id": pl.String,  # CIK-########## of the filing's company; null when unknown
    "source": pl.String,  # text | xbrl
    "relation": pl.String,
    "subject_key": pl.String,  # mention key (graph.resolution.mention_key)
    "subject_text": pl.String,  # as the filing wrote it ("we", "Taiwan Semiconductor …")
    "subject_role": pl.String,  # party | risk | metric (graph.ontology.OBJECT_ROLE)
    "object_key": pl.String,
    "object_text": pl.String,  # as the filing wrote it: the risk phrase or heading stays here
    "object_role": pl.String,
    "value": pl.Float64,
    "unit": pl.String,
    "period": pl.String,  # fiscal label as stated (FY2025, Q2-FY2026); null when undated
    "period_type": pl.String,  # xbrl: duration | instant
    "calendar_start": pl.Date,  # xbrl: the observation's range
    "calendar_end": pl.Date,
    "chunk_id": pl.String,
    "quote": pl.String,  # text: the verbatim evidence; xbrl: null (the fact is the evidence)
    "char_start": pl.Int64,
    "char_end": pl.Int64,
    "observation_id": pl.String,
    "fact_id": pl.String,
    "concept": pl.String,
    "adjustment": pl.String,
    "triple_id": pl.String,
    # Appended last (a working store adds them in place): a guided range's ends ("between $151.0
    # billion and $155.5 billion"; `value` null), and a single figure stated as a floor or a
    # ceiling ("exceed $11 billion": lower; "up to 1.0%": upper; common.numbers.stated_bound).
    "value_low": pl.Float64,
    "value_high": pl.Float64,
    "bound": pl.String,  # lower | upper | null (the figure as stated)
    # The triple's method and confidence (VALIDATED_TRIPLES'); null for an XBRL observation.
    "method": pl.String,
    "confidence": pl.Float64,
}

CANDIDATE = pl.Struct(
    {"entity_id": pl.String, "name": pl.String, "score": pl.Float64, "via": pl.String}
)

# One row per distinct mention (role, text, and the filer for "we"/"Customer A"): its resolution.
MENTIONS: Schema = {
    "mention_key": pl.String,
    "role": pl.String,
    "text": pl.String,
    "filer_id": pl.String,  # set only for context-dependent mentions
    "status": pl.String,  # resolved | unresolved
    # self | designated | ticker | sec_name | curated | normalized | organization | legal_form |
    # similar | risk_taxonomy | metric_vocabulary | xbrl | merge_log (or +merge_log), or the reason
    # it did not resolve
    "method": pl.String,
    "entity_id": pl.String,
    "entity_type": pl.String,
    "entity_name": pl.String,
    # unresolved | similar | ambiguous_* | unknown_* | possible_duplicate | no_filer
    "review_reason": pl.String,
    "candidates": pl.List(CANDIDATE),
}

# Entities of the graph: every node, whatever its type (graph.ontology.ENTITY_TYPES).
NODES: Schema = {
    # CIK-0001045810 | ORG:samsung-electronics | RISK:export-controls | METRIC:revenue
    "entity_id": pl.String,
    "entity_type": pl.String,  # company | organization | risk | metric
    "name": pl.String,
    "cik": pl.String,  # companies only
    "description": pl.String,  # risk categories and metrics: what they cover
    "is_filer": pl.Boolean,  # a company with filings in the corpus
}

ENTITY_ALIASES: Schema = {
    "entity_id": pl.String,
    "alias": pl.String,  # as written in its source
    "alias_norm": pl.String,  # normalize_name(alias); tickers upper-cased instead
    "alias_compact": pl.String,
    "kind": pl.String,  # name | ticker | sec_title | sec_name | former_name | registrant_name |
    # curated | mention | risk_label
}

# The graph's edges: one per (subject, relation, object, period) and value; a different value for
# the same statement is a restatement, a second edge linked through superseded_by.
EDGES: Schema = {
    # hash of subject, relation, object, period and value (a range's ends, a bound)
    "edge_id": pl.String,
    "subject_id": pl.String,
    "relation": pl.String,
    "object_id": pl.String,
    # fiscal label as stated (FY2025, Q2-FY2026); null when the text states none
    "period": pl.String,
    # the label's calendar range (the filer's fiscal calendar), when known
    "calendar_start": pl.Date,
    "calendar_end": pl.Date,
    "value": pl.Float64,
    "unit": pl.String,
    "source": pl.String,  # text | xbrl
    "statement_key": pl.String,  # hash of subject, relation, object, period and unit (value-free)
    "evidence_count": pl.Int64,
    "filing_count": pl.Int64,
    "first_filing_id": pl.String,
    "first_filed": pl.Date,
    "last_filing_id": pl.String,
    "last_filed": pl.Date,
    "seen_periods": pl.List(pl.String),  # fiscal labels of the filings that state it
    "stated_by": pl.List(pl.String),  # company ids of those filings' filers
    "phrases": pl.List(pl.String),  # the object as the filings wrote it (risk phrases, names)
    "adjustment": pl.String,  # e.g. hypothetical_to_risk
    # the edge of the same statement with a newer value; null if current
    "superseded_by": pl.String,
    # As in CLAIMS (appended last, so a working store adds them in place): a range's ends and
    # whether the single value is a floor or a ceiling.
    "value_low": pl.Float64,
    "value_high": pl.Float64,
    "bound": pl.String,  # lower | upper | null
}

EDGE_EVIDENCE: Schema = {
    "evidence_id": pl.String,
    "edge_id": pl.String,
    "filing_id": pl.String,
    "filer_id": pl.String,
    "chunk_id": pl.String,
    "quote": pl.String,  # verbatim (text); null for an XBRL observation
    "char_start": pl.Int64,
    "char_end": pl.Int64,
    "subject_text": pl.String,
    "object_text": pl.String,
    "observation_id": pl.String,
    "fact_id": pl.String,
    "concept": pl.String,
    # How the quote's triple was extracted (VALIDATED_TRIPLES' method: rule:…, learned, an LLM
    # backend's name; several, comma-joined, when duplicates merged) and the classifier's
    # probability (null for rules and XBRL).
    "method": pl.String,
    "confidence": pl.Float64,
}

EVIDENCE_ITEM = pl.Struct(
    {
        "filing_id": pl.String,
        "chunk_id": pl.String,
        "relation": pl.String,
        "subject_text": pl.String,
        "object_text": pl.String,
        "quote": pl.String,
        "char_start": pl.Int64,
        "char_end": pl.Int64,
    }
)

# Mentions a person should look at: unresolved ones (kept out of the graph) and possible
# duplicates (in the graph, flagged), each with its evidence.
REVIEW_QUEUE: Schema = {
    "review_id": pl.String,  # the mention key
    "text": pl.String,
    "role": pl.String,
    "filer_id": pl.String,
    "reason": pl.String,
    "in_graph": pl.Boolean,  # a possible duplicate that was resolved (the others are left out)
    "entity_id": pl.String,  # what it resolved to, when in_graph
    "candidates": pl.List(CANDIDATE),
    "claims": pl.Int64,  # evidence rows held back (or flagged) by it
    "evidence": pl.List(EVIDENCE_ITEM),  # the first few
}

# Which entities each graph update touched (what the communities stage re-clusters), and which
# filings each update applied (added, changed, removed, or re-derived after a resolution change).
GRAPH_CHANGES: Schema = {
    "update_id": pl.Int64,
    "entity_id": pl.String,
}
GRAPH_UPDATES: Schema = {
    "update_id": pl.Int64,
    "filing_ids": pl.List(pl.String),
    "edges_touched": pl.Int64,
    "entities_touched": pl.Int64,
}

# -- communities (graphrag_core.graph.communities) ---------------------------------------------
# A citation of a community finding: one piece of evidence of an edge inside the community, and
# the member entity it is about.
COMMUNITY_CITATION = pl.Struct(
    {
        "evidence_id": pl.String,
        "edge_id": pl.String,
        "entity_id": pl.String,
        "filing_id": pl.String,
        "chunk_id": pl.String,
        "quote": pl.String,
    }
)
# One entity a finding names (a supplier of its anchor, a company exposed to its risk), with the
# edge that says so and that edge's newest citation.
COMMUNITY_PARTNER = pl.Struct(
    {
        "entity_id": pl.String,
        "name": pl.String,
        "edge_id": pl.String,
        "evidence": pl.Int64,
        "citation": COMMUNITY_CITATION,
    }
)
MEMBER_REF = pl.Struct({"entity_id": pl.String, "name": pl.String, "entity_type": pl.String})
RELATION_COUNT = pl.Struct({"relation": pl.String, "edges": pl.Int64, "evidence": pl.Int64})
RISK_COUNT = pl.Struct(
    {"risk_id": pl.String, "label": pl.String, "companies": pl.Int64, "evidence": pl.Int64}
)

COMMUNITIES: Schema = {
    "community_id": pl.String,  # L<level>-<hash of its members>: the same members, the same id
    "level": pl.Int32,  # 0 = the coarsest; a community over the size limit is split at level + 1
    "parent_id": pl.String,  # null at level 0 (a forest: every connected part has its roots)
    "size": pl.Int64,  # members
    "companies": pl.Int64,  # members that are companies (SEC registrants)
    "children": pl.Int32,
    "is_leaf": pl.Boolean,
    "weight": pl.Float64,  # projection weight (evidence) of the edges inside it
    "clustering_id": pl.String,  # the clustering run that made it
    "report_status": pl.String,  # current | stale | withheld | missing | no_evidence
    "status_reason": pl.String,  # why stale or withheld
}
COMMUNITY_MEMBERS: Schema = {
    "community_id": pl.String,
    "level": pl.Int32,
    "entity_id": pl.String,
    "entity_type": pl.String,
    "name": pl.String,
    "weight": pl.Float64,  # weighted degree inside the community
}
COMMUNITY_LEVELS: Schema = {
    "clustering_id": pl.String,
    "level": pl.Int32,
    "communities": pl.Int64,  # in the partition at this level (its own and the leaves above)
    "new_communities": pl.Int64,  # made at this level
    "nodes": pl.Int64,
    "modularity": pl.Float64,  # of the partition at this level, over the whole projection
    "largest": pl.Int64,
    "singletons": pl.Int64,
    "seconds": pl.Float64,
}
COMMUNITY_REPORTS: Schema = {
    "community_id": pl.String,
    "level": pl.Int32,
    "title": pl.String,
    "summary": pl.String,  # sentences of its top findings (each backed by their citations)
    "summary_citations": pl.List(COMMUNITY_CITATION),
    "member_companies": pl.List(MEMBER_REF),  # strongest first (at most 25)
    "members": pl.Int64,
    "companies": pl.Int64,
    "relations": pl.List(RELATION_COUNT),  # dominant relations, most cited first
    "risks": pl.List(RISK_COUNT),  # dominant risk categories, most companies first
    "edges": pl.Int64,  # edges inside the community (relations and risk exposures)
    "evidence": pl.Int64,  # citations behind them
    "impact_rating": pl.Int32,  # 0-10
    "impact_explanation": pl.String,
    "findings": pl.Int32,
    "findings_dropped": pl.Int32,  # model findings dropped for a citation outside the community
    "source_filings": pl.List(pl.String),  # every filing whose evidence the report rests on
    "summarizer": pl.String,  # extractive | openai:<model>
    "graph_version": pl.Int64,  # the graph update it was built from
    "as_of": pl.Date,  # newest filing date of the graph it was built from
    "built_at": pl.Datetime("us", "UTC"),
    "stale": pl.Boolean,  # its members gained or lost edges since it was built
}
COMMUNITY_FINDINGS: Schema = {
    "finding_id": pl.String,
    "community_id": pl.String,
    "rank": pl.Int32,
    "kind": pl.String,  # relation | risk | model
    "theme": pl.String,  # what findings merge on: risk:RISK:…, SUPPLIES>CIK-…, model:<hash>
    "label": pl.String,  # "export controls", "suppliers of NVIDIA CORP"
    "relation": pl.String,
    "anchor_id": pl.String,  # the entity the finding is about (the risk, the supplied company)
    "anchor_name": pl.String,
    "statement": pl.String,
    "partners": pl.List(COMMUNITY_PARTNER),  # the entities it names, strongest first
    "partner_count": pl.Int64,  # all of them in the community (named or not)
    "support": pl.Int64,  # citations behind all of them
    "citations": pl.List(COMMUNITY_CITATION),
}

# Quality-check verdicts per filing and stage (`check_results`): what gates a publish.
CHECK_RESULTS: Schema = {
    "filing_id": pl.String,
    "asset": pl.String,
    "check": pl.String,
    "passed": pl.Boolean,
    "blocking": pl.Boolean,
    "figures": pl.String,  # JSON object of what was measured
    "evaluated_at": pl.Datetime("us", "UTC"),
}

# One row per ingestion report (graphrag_core.operations.ingestion_report): the history its
# rejection-rate chart is drawn from.
INGESTION_REPORTS: Schema = {
    "generated_at": pl.Datetime("us", "UTC"),
    "filings": pl.Int32,  # filings processed in the run(s) the report covers
    "failed": pl.Int32,
    "chunks": pl.Int64,
    "facts": pl.Int64,
    "metric_observations": pl.Int64,
    "triples_accepted": pl.Int64,
    "triples_rejected": pl.Int64,
    "rejection_rate": pl.Float64,  # null when no candidate triple was judged
    "baseline": pl.Float64,  # median rejection rate of the filings before; null without one
    "limit": pl.Float64,  # above this a filing's rate is a spike
    # Filings left out of the corpus job (failed their own checks); histories kept before this
    # column have `publish_blocked` (failed blocking checks, which then held back the publish).
    "left_out": pl.Int32,
    "new_entities": pl.Int64,  # entities only these filings name (null: graph not read)
    "queued_for_review": pl.Int64,  # their mentions waiting in the review queue
}

# Themes from the filings' own risk factors (issue 25, item 2; graphrag_core/retrieval/themes.py).
FILING_THEMES: Schema = {
    "theme_id": pl.String,  # THEME-<hash of its members' ids>: the same members, the same id
    "label": pl.String,  # the words its members' headings share most ("privacy, data, security")
    "terms": pl.List(pl.String),
    "companies": pl.Int32,
    "filings": pl.Int32,
    "members": pl.Int32,
    "risk_factors": pl.Int32,  # members of kind risk_factor
    "mdna_statements": pl.Int32,  # members of kind mdna
    "fiscal_periods": pl.List(pl.String),  # the members' filings' fiscal labels, sorted
    "first_period_end": pl.Date,
    "last_period_end": pl.Date,
    "last_known": pl.Date,  # newest filing date (or period end when a filing has none)
    "centroid": pl.List(pl.Float32),  # unit mean of its members' vectors (query by meaning)
    "dirty_since": pl.Datetime("us", "UTC"),  # a filing joined or left it since it was built
    "built_at": pl.Datetime("us", "UTC"),
}
FILING_THEME_MEMBERS: Schema = {
    "member_id": pl.String,  # hash of filing, chunk and heading span
    "theme_id": pl.String,  # null: no theme near enough yet (joins one at the next refresh)
    # risk_factor (an Item 1A heading) | mdna (an MD&A statement of a trend and its driver)
    "kind": pl.String,
    "filing_id": pl.String,
    "cik": pl.String,
    "company": pl.String,
    "form": pl.String,
    "fiscal_label": pl.String,
    "period_end": pl.Date,
    "filed_date": pl.Date,
    "chunk_id": pl.String,
    "section": pl.String,
    "char_start": pl.Int32,  # the quote's span in its chunk's text: `heading` is verbatim
    "char_end": pl.Int32,
    "heading": pl.String,  # the risk heading; an MD&A member's statement
    # the body's first sentence (an MD&A member: the subheading above it), embedded with it
    "opening": pl.String,
    "text_sha": pl.String,  # of the embedded text: a vector is reused while it is unchanged
    "vector": pl.List(pl.Float32),
    "similarity": pl.Float32,  # cosine to its theme's centroid
}

# Working tables by name (the names of the assets that own them): the Parquet store conforms
# every write of these to its schema.
SCHEMAS: dict[str, Schema] = {
    "raw_filings": FILINGS,
    "raw_filing_documents": DOCUMENTS,
    "section_chunks": CHUNKS,
    "xbrl_facts": XBRL_FACTS,
    "metric_observations": METRIC_OBSERVATIONS,
    "extractions": EXTRACTIONS,
    "validated_triples": VALIDATED_TRIPLES,
    "asset_checks": CHECK_RESULTS,
    "ingestion_reports": INGESTION_REPORTS,
}
