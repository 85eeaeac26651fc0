"""Resolved entities, the pure half: what an update of the graph store's `resolved_entities`
finds (`read_change`: which filings were added, changed or removed, read and checked before
anything is written), what the registry of names is built from (`RegistryInputs`), and the rows
the store writes for mentions and for the names this code contributes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from graphrag_core.common.ids import company_key, normalize_cik, sha256_stream
from graphrag_core.common.names import has_legal_form, is_sentence, normalize_name
from graphrag_core.graph import ontology
from graphrag_core.graph.claims import filing_claims, filing_label
from graphrag_core.graph.curated import CuratedAliases
from graphrag_core.graph.graph_store_model import FilingInputs, GraphInputError, Reference
from graphrag_core.graph.merge_log import redirect
from graphrag_core.graph.resolution import (
    RESOLVED,
    Registry,
    Resolution,
    is_context_dependent,
    registry_digest,
)
from graphrag_core.graph.risk_taxonomy import TAXONOMY
from graphrag_core.tables.schemas import CLAIMS, empty


# -- the change ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class EntityChange:
    """The filings of an update of resolved_entities, all read and checked before any write."""

    present: list[str]
    added: list[str]
    changed: list[str]
    removed: list[str]
    fresh_filings: list[dict[str, Any]]  # rows of the added and changed filings
    fresh_claims: list[pl.DataFrame]  # their claims
    touched_only: list[dict[str, Any]]  # rewritten but equal: only their signature is new
    filers: list[tuple[str, str | None]]  # (cik, registrant name) once the change is written

    @property
    def gone(self) -> list[str]:
        """Filings whose stored rows and claims go: removed, or replaced by fresh ones."""
        return [*self.removed, *self.changed]

    @property
    def claims(self) -> pl.DataFrame:
        return pl.concat(self.fresh_claims) if self.fresh_claims else empty(CLAIMS)

    @property
    def filings_changed(self) -> bool:
        return bool(self.gone or self.fresh_filings)


def read_change(
    source: FilingInputs,
    present: Sequence[str],
    stored: Sequence[tuple[Any, ...]],
) -> EntityChange:
    """Compare the filings of `source` (`present` of them) with the store's rows (`stored`:
    filing_id, signature, digest, cik, company, filed_date): a filing whose inputs' signature
    moved is read, and counts as changed only when its claims' digest moved too."""
    previous = {r[0]: (r[1], r[2]) for r in stored}
    signatures = {fid: source.signature(fid) for fid in present}
    removed = sorted(set(previous) - set(present))
    suspects = [fid for fid in present if previous.get(fid, ("", ""))[0] != signatures[fid]]
    fresh_filings: list[dict[str, Any]] = []
    fresh_claims: list[pl.DataFrame] = []
    added: list[str] = []
    changed: list[str] = []
    touched_only: list[dict[str, Any]] = []
    for fid in suspects:
        row, claims = read_filing(source, fid, signatures[fid])
        if fid in previous and previous[fid][1] == row["digest"]:
            touched_only.append(row)
            continue
        (changed if fid in previous else added).append(fid)
        fresh_filings.append(row)
        fresh_claims.append(claims)
    # The filings as they will be once this update is written: those kept, and the fresh.
    replaced = set(removed) | set(changed)
    filers = filer_names(
        [(r[0], r[3], r[4], r[5]) for r in stored if r[0] not in replaced]
        + [(r["filing_id"], r["cik"], r["company"], r["filed_date"]) for r in fresh_filings]
    )
    return EntityChange(
        present=list(present),
        added=added,
        changed=changed,
        removed=removed,
        fresh_filings=fresh_filings,
        fresh_claims=fresh_claims,
        touched_only=touched_only,
        filers=filers,
    )


def read_filing(
    source: FilingInputs, filing_id: str, signature: str
) -> tuple[dict[str, Any], pl.DataFrame]:
    """A filing's row of the working `filings` table (without seq and unresolved) and claims."""
    raw, triples, metrics = source.read(filing_id)
    if raw.is_empty():
        raise GraphInputError(
            f"raw_filings partition {filing_id!r} is empty. Fix: re-materialize raw_filings "
            "for it; the graph was left as it was"
        )
    meta = raw.row(0, named=True)
    cik = normalize_cik(meta.get("cik"))
    filer = company_key(cik) if cik else None
    claims = filing_claims(triples, metrics, filer)
    digest = sha256_stream(
        [
            f"{filer}|{meta.get('company')}|{meta.get('filed_date')}|{meta.get('fiscal_year')}|"
            f"{meta.get('fiscal_period')}|{meta.get('form')}\n",
            claims.hash_rows(seed=0).to_numpy().tobytes() if claims.height else b"",
        ]
    )
    row = {
        "filing_id": filing_id,
        "cik": cik,
        "filer_id": filer,
        "company": meta.get("company"),
        "form": meta.get("form"),
        "filed_date": meta.get("filed_date"),
        "fiscal_label": filing_label(meta.get("fiscal_year"), meta.get("fiscal_period")),
        "signature": signature,
        "digest": digest,
    }
    return row, claims


# -- the registry's inputs -------------------------------------------------------------------------
@dataclass(frozen=True)
class RegistryInputs:
    """Everything the registry of names is assembled from; its digest says when to rebuild."""

    reference: Reference
    filers: list[tuple[str, str | None]]
    merges: Mapping[str, str]
    curated: CuratedAliases
    review_similarity: float
    auto_merge_similarity: float

    def digest(self, reference_digest: str) -> str:
        """With the digest of the reference rows (the store may know it without hashing)."""
        return registry_digest(
            reference=reference_digest,
            filers=self.filers,
            curated=self.curated,
            merges=self.merges,
            review_similarity=self.review_similarity,
            auto_merge_similarity=self.auto_merge_similarity,
        )


def new_mentions(claims: pl.DataFrame, known: set[str]) -> dict[str, tuple[str, str, str | None]]:
    """The mentions of `claims` not in `known` (their first appearance, in a stable order):
    key → (role, text, filer)."""
    out: dict[str, tuple[str, str, str | None]] = {}
    for side in ("subject", "object"):
        for key, text, role, filer in (
            claims.select(f"{side}_key", f"{side}_text", f"{side}_role", "filer_id")
            .unique()
            .sort(f"{side}_key")
            .iter_rows()
        ):
            if key not in known and key not in out:
                out[key] = (role, text, filer)
    return out


def resolve_keys(
    registry: Registry, todo: Mapping[str, tuple[str, str, str | None]]
) -> dict[str, Resolution]:
    out: dict[str, Resolution] = {}
    # Legal-form names first, so that an organization is known before its short name is met.
    order = sorted(
        todo, key=lambda k: (todo[k][0] == "id", 0 if _legal(todo[k][1]) else 1, todo[k][1], k)
    )
    for key in order:
        role, text, filer = todo[key]
        if role == "id":  # an XBRL claim names its company and metric by id: "id:CIK-…"
            target = redirect(key[len("id:") :], registry.merges)
            out[key] = Resolution(
                RESOLVED, "xbrl", target, ontology.entity_type(target), registry.name(target)
            )
        else:
            out[key] = registry.resolve(text, role, filer)
    return out


def mention_rows(
    results: Mapping[str, Resolution],
    todo: Mapping[str, tuple[str, str, str | None]],
    old: Mapping[str, Mapping[str, Any]],
    seq: int,
) -> tuple[list[dict[str, Any]], int]:
    """The mention rows to write (new ones, and those whose resolution or method moved) and how
    many existing mentions changed their resolution (which re-derives their filings' evidence)."""
    rows, changed = [], 0
    for key, res in results.items():
        role, text, filer = todo[key]
        row = mention_row(key, role, text, filer, res)
        prior = old.get(key)
        if prior is None:
            rows.append({**row, "created_seq": seq, "changed_seq": None})
            continue
        if any(
            prior[c] != row[c] for c in ("status", "entity_id", "review_reason", "entity_name")
        ) or ((prior["candidates"] or []) != (row["candidates"] or [])):
            changed += 1
            rows.append({**row, "created_seq": prior["created_seq"], "changed_seq": seq})
        elif prior["method"] != row["method"]:
            rows.append(
                {**row, "created_seq": prior["created_seq"], "changed_seq": prior["changed_seq"]}
            )
    return rows, changed


def filer_names(
    filings: Iterable[tuple[str, str | None, str | None, dt.date | None]],
) -> list[tuple[str, str | None]]:
    """(cik, registrant name) of every filer of (filing id, cik, company, filed date) rows, by
    CIK: the name its latest filing gives (by filed date, then filing id, so that two filings of
    one day, or two undated, always give the same name), None when no filing gives one."""
    names: dict[str, str | None] = {}
    latest: dict[str, tuple[dt.date, str]] = {}
    for filing_id, cik, company, filed in filings:
        if cik is None:
            continue
        names.setdefault(cik, None)
        key = (filed or dt.date.min, filing_id)
        if company is not None and (cik not in latest or key > latest[cik]):
            latest[cik], names[cik] = key, company
    return sorted(names.items())


def _legal(text: str) -> bool:
    return has_legal_form(text) and not is_sentence(text)


def static_rows(curated: CuratedAliases) -> list[dict[str, Any]]:
    """Names that come from this code rather than the filings: the risk taxonomy (every category
    is a node), metric descriptions, curated aliases and organization names."""
    rows: list[dict[str, Any]] = []

    def add(
        entity: str,
        kind: str,
        name: str | None,
        description: str | None,
        always: bool,
        alias: str | None,
        alias_kind: str | None,
    ) -> None:
        norm = normalize_name(alias) if alias else None
        rows.append(
            {
                "entity_id": entity,
                "entity_type": kind,
                "name": name,
                "description": description,
                "always": always,
                "alias": alias,
                "alias_norm": norm,
                "alias_kind": alias_kind,
            }
        )

    for category in TAXONOMY:
        for alias in (category.label, category.key.replace("-", " ")):
            add(
                category.entity_id,
                ontology.RISK,
                category.label,
                category.description,
                True,
                alias,
                "risk_label",
            )
    for metric, label in ontology.METRIC_LABELS.items():
        add(
            ontology.metric_id(metric),
            ontology.METRIC,
            metric,
            label,
            False,
            metric.replace("_", " "),
            "name",
        )
    for company in curated.companies:
        for alias in company.aliases:
            add(company.entity_id, ontology.COMPANY, None, None, False, alias, "curated")
    for org in curated.organizations:
        add(org.entity_id, ontology.ORGANIZATION, org.name, None, False, org.name, "name")
        for alias in org.aliases:
            add(org.entity_id, ontology.ORGANIZATION, org.name, None, False, alias, "curated")
    return rows


def mention_row(
    key: str, role: str, text: str, filer: str | None, res: Resolution
) -> dict[str, Any]:
    return {
        "mention_key": key,
        "role": role,
        "text": text,
        "filer_id": filer if is_context_dependent(text) else None,
        "status": res.status,
        "method": res.method,
        "entity_id": res.entity_id,
        "entity_type": res.entity_type,
        "entity_name": res.name,
        "review_reason": res.review_reason,
        "candidates": [c.as_row() for c in res.candidates],
        "text_norm": normalize_name(text) if role == ontology.PARTY else None,
    }
