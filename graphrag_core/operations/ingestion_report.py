"""The ingestion report: what one run (or batch of per-filing runs) did, in figures a data
engineer checks each morning, and how its rejection rate compares with the filings before.

Built from the working tables of the filings the run processed, the failures its runs recorded
and the filings the corpus job leaves out (`exclusions`); kept as a row of `ingestion_reports` (the
history the chart is drawn
from) and written as Markdown and SVG beside the snapshots.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from graphrag_core.common.atomic import write_atomic
from graphrag_core.extraction.quality import rejection_baseline
from graphrag_core.extraction.validated_triples import rejection_summary
from graphrag_core.operations.chart import line_chart_svg
from graphrag_core.settings import ReportSettings
from graphrag_core.store.manifest import ExcludedFiling
from graphrag_core.tables.check_results import recorded_checks
from graphrag_core.tables.schemas import INGESTION_REPORTS, frame
from graphrag_core.tables.table_store import TableStore

HISTORY_TABLE = "ingestion_reports"
CHUNK_KINDS = ("prose", "table", "turn", "qa")


@dataclass
class IngestionReport:
    generated_at: dt.datetime
    filings: list[str]
    failed: dict[str, str]
    chunks_by_kind: dict[str, int]
    facts: int
    metric_observations: int
    triples_accepted: int
    triples_rejected: int
    rejected_by_reason: dict[str, int]
    rejection_rate: float | None
    baseline: float | None
    limit: float | None
    baseline_filings: int
    # Every filing the corpus job leaves out (failed its own checks), with the reason and fix.
    left_out: list[ExcludedFiling]
    failed_checks: list[str] = field(default_factory=list)
    # From the graph stage (None when the report was built without it): entity type → entities
    # only these filings name; review reason → their mentions waiting in the review queue.
    new_entities: dict[str, int] | None = None
    queued_for_review: dict[str, int] | None = None

    @property
    def chunks(self) -> int:
        return sum(self.chunks_by_kind.values())

    @property
    def spike(self) -> bool:
        return (
            self.rejection_rate is not None
            and self.limit is not None
            and self.rejection_rate > self.limit
        )

    def figures(self) -> dict[str, int | float | str]:
        """The headline numbers (Dagster metadata)."""
        out: dict[str, int | float | str] = {
            "filings_processed": len(self.filings),
            "filings_failed": len(self.failed),
            "chunks": self.chunks,
            **{f"chunks_{k}": v for k, v in self.chunks_by_kind.items()},
            "facts": self.facts,
            "metric_observations": self.metric_observations,
            "triples_accepted": self.triples_accepted,
            "triples_rejected": self.triples_rejected,
            "filings_left_out": len(self.left_out),
        }
        if self.new_entities is not None:
            out["new_entities"] = sum(self.new_entities.values())
        if self.queued_for_review is not None:
            out["queued_for_review"] = sum(self.queued_for_review.values())
        if self.rejection_rate is not None:
            out["rejection_rate"] = round(self.rejection_rate, 4)
        if self.baseline is not None:
            out["rejection_baseline"] = round(self.baseline, 4)
        return out

    def history_row(self) -> dict:
        return {
            "generated_at": self.generated_at,
            "filings": len(self.filings),
            "failed": len(self.failed),
            "chunks": self.chunks,
            "facts": self.facts,
            "metric_observations": self.metric_observations,
            "triples_accepted": self.triples_accepted,
            "triples_rejected": self.triples_rejected,
            "rejection_rate": self.rejection_rate,
            "baseline": self.baseline,
            "limit": self.limit,
            "left_out": len(self.left_out),
            "new_entities": None if self.new_entities is None else sum(self.new_entities.values()),
            "queued_for_review": (
                None if self.queued_for_review is None else sum(self.queued_for_review.values())
            ),
        }

    def markdown(self) -> str:
        def pct(v: float | None) -> str:
            return "—" if v is None else f"{v:.1%}"

        rate_note = ""
        if self.rejection_rate is not None and self.baseline is not None:
            rate_note = " **SPIKE**" if self.spike else " (within baseline)"
        lines = [
            f"# Ingestion report {self.generated_at:%Y-%m-%d %H:%M} UTC",
            "",
            "| figure | value |",
            "|---|---|",
            f"| filings processed | {len(self.filings)} |",
            f"| filings failed | {len(self.failed)} |",
            f"| chunks | {self.chunks} ("
            + ", ".join(f"{k} {v}" for k, v in self.chunks_by_kind.items())
            + ") |",
            f"| XBRL facts | {self.facts} |",
            f"| metric observations | {self.metric_observations} |",
            f"| triples accepted | {self.triples_accepted} |",
            f"| triples rejected | {self.triples_rejected} |",
            f"| new entities | {_breakdown(self.new_entities)} |",
            f"| mentions queued for review | {_breakdown(self.queued_for_review)} |",
            f"| rejection rate | {pct(self.rejection_rate)}{rate_note} |",
            f"| baseline (median of {self.baseline_filings} filings before) | "
            f"{pct(self.baseline)} |",
            f"| spike limit | {pct(self.limit)} |",
            f"| filings left out of the snapshot | {len(self.left_out)} |",
        ]
        if self.rejected_by_reason:
            lines += ["", "## Triples rejected by reason", "", "| reason | triples |", "|---|---|"]
            lines += [
                f"| {k} | {v} |"
                for k, v in sorted(self.rejected_by_reason.items(), key=lambda kv: -kv[1])
            ]
        if self.failed:
            lines += ["", "## Failed filings", "", "| filing | error |", "|---|---|"]
            lines += [f"| {k} | {_cell(v)} |" for k, v in sorted(self.failed.items())]
        if self.failed_checks:
            lines += ["", "## Failed checks", ""] + [f"- {c}" for c in self.failed_checks]
        if self.left_out:
            # Each fix whole (a cut-off command helps no one); the reason as the table cells.
            lines += ["", "## Left out of the snapshot (the other filings publish)", ""]
            for e in self.left_out:
                lines += [
                    f"- {e.filing_id}: {_cell(e.reason)}",
                    f"  - fix: {' '.join(e.fix.split())}",
                ]
        return "\n".join(lines) + "\n"


def _breakdown(counts: dict[str, int] | None) -> str:
    if counts is None:
        return "—"
    parts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{sum(counts.values())}" + (f" ({parts})" if parts else "")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")[:300]


def build_report(
    store: TableStore,
    filing_ids: list[str],
    failed: dict[str, str],
    settings: ReportSettings,
    *,
    now: dt.datetime | None = None,
    new_entities: dict[str, int] | None = None,
    queued_for_review: dict[str, int] | None = None,
    left_out: list[ExcludedFiling] | None = None,
) -> IngestionReport:
    """The report of a run that processed `filing_ids` (those that materialized) and in which
    `failed` (filing id → error) failed; `new_entities` and `queued_for_review`: what those
    filings brought to the graph (the graph stage's `GraphStore.filings_contribution`);
    `left_out`: every filing the corpus job leaves out (`exclusions.corpus_exclusions`)."""
    ids = sorted(set(filing_ids))

    def rows(table: str, columns: list[str]) -> pl.DataFrame:
        keys = [k for k in ids if store.exists(table, k)]
        return store.scan(table, keys).select(columns).collect()

    chunks = rows("section_chunks", ["kind"])
    kinds = dict(chunks.group_by("kind").len().iter_rows()) if chunks.height else {}
    by_kind = {k: int(kinds.get(k, 0)) for k in CHUNK_KINDS} | {
        str(k): int(v) for k, v in kinds.items() if k not in CHUNK_KINDS
    }
    facts = rows("xbrl_facts", ["fact_id"]).height
    observations = rows("metric_observations", ["metric"]).height
    validated = rows("validated_triples", ["status", "reason", "support"])
    summary = rejection_summary(validated) if validated.height else None
    baseline = rejection_baseline(store, settings, exclude=ids)
    checks = (
        recorded_checks(store, ids).filter(~pl.col("passed")).sort("filing_id", "asset", "check")
    )
    failed_checks = [
        f"filing {r['filing_id']}: {r['asset']}/{r['check']} failed"
        + (" (blocking)" if r["blocking"] else " (warning)")
        + f" {_short(r['figures'])}"
        for r in checks.iter_rows(named=True)
    ]
    return IngestionReport(
        generated_at=now or dt.datetime.now(dt.UTC),
        filings=ids,
        failed=dict(sorted(failed.items())),
        chunks_by_kind=by_kind,
        facts=facts,
        metric_observations=observations,
        triples_accepted=summary.accepted if summary else 0,
        triples_rejected=summary.rejected if summary else 0,
        rejected_by_reason=summary.rejected_by_reason if summary else {},
        rejection_rate=summary.rejection_rate if summary and summary.candidates else None,
        baseline=baseline.median if baseline else None,
        limit=baseline.limit(settings.spike_margin) if baseline else None,
        baseline_filings=baseline.filings if baseline else 0,
        left_out=list(left_out or []),
        failed_checks=failed_checks,
        new_entities=new_entities,
        queued_for_review=queued_for_review,
    )


def _short(figures: str | None) -> str:
    data = json.loads(figures or "{}")
    return ", ".join(f"{k}={v}" for k, v in list(data.items())[:4])


def record(store: TableStore, report: IngestionReport) -> pl.DataFrame:
    """Append the report to the history table; return the whole history, oldest first."""
    history = (
        store.read(HISTORY_TABLE) if store.exists(HISTORY_TABLE) else frame([], INGESTION_REPORTS)
    )
    # diagonal: a history kept before a column was added reads back without it
    history = pl.concat(
        [history, frame([report.history_row()], INGESTION_REPORTS)], how="diagonal_relaxed"
    ).sort("generated_at")
    store.write(HISTORY_TABLE, history)
    return history


def rejection_chart(history: pl.DataFrame, runs: int) -> str:
    """SVG of the rejection rate of the last `runs` reports against their baselines."""
    recent = history.tail(runs)
    labels = [f"{t:%m-%d %H:%M}" for t in recent["generated_at"]]
    return line_chart_svg(
        "Rejection rate per run",
        labels,
        {
            "rejection rate": recent["rejection_rate"].to_list(),
            "baseline": recent["baseline"].to_list(),
            "spike limit": recent["limit"].to_list(),
        },
    )


def write_report_files(folder: Path, report: IngestionReport, chart_svg: str) -> Path:
    """`ingestion_report.md` (the latest) and `rejection_rate.svg`, plus a dated copy of the
    Markdown, in `folder`; returns the latest report's path."""
    stamp = f"{report.generated_at:%Y%m%dT%H%M%SZ}"
    body = report.markdown() + "\n![rejection rate per run](rejection_rate.svg)\n"
    write_atomic(folder / "rejection_rate.svg", chart_svg.encode("utf-8"))
    write_atomic(folder / "history" / f"ingestion_report-{stamp}.md", body.encode("utf-8"))
    return write_atomic(folder / "ingestion_report.md", body.encode("utf-8"))
