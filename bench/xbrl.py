#!/usr/bin/env python
"""XBRL benchmark: the xbrl_facts + metric_observations stage against arelle's bare load.

For every filing of the corpus (`FILINGS_CORPUS`, default `../shared/corpus` beside the repo)
that has an inline-XBRL document, interleaved file by file in one run:

- bare: arelle loads the document offline and counts its facts (`xbrl.bare_load_seconds`) —
  the floor any arelle-based stage pays;
- stage: everything the two assets do for that filing — decode every document, load with
  arelle, read, validate and collapse the facts, cite them to the filing's chunks (computed
  beforehand by the lead's stages, outside the timing), and map them to metric observations
  with fiscal labels.

It prints facts per second, seconds per filing (median and worst), the ratio to the bare load,
peak memory of each (each measured alone in a child process: its high-water RSS), the skip counters,
and the coverage table: for each canonical metric and company, how many of the company's
10-K/10-Q filings with inline XBRL yield it — before and after issue 14 side by side ("before":
us-gaap concepts only, as reported; "after": with company concepts mapped by label and place,
gross profit derived where no line is reported, and damaged documents read again), the quarters
derived from year-to-date figures across filings, the earnings-release figures read from 8-K
exhibits, and the supersede reasons. Figures only, never pass/fail; exits 0.

    .venv/bin/python bench/xbrl.py [--repeat N] [--limit N] [--small]

`--small`: the same on a few small filings (bench/_small.py), for the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import polars as pl

from graphrag_core.intake.local_folder import LocalFolderSource
from graphrag_core.intake.raw_filing import ingest_filing
from graphrag_core.settings import default_corpus
from graphrag_core.tables.records import FilingRef
from graphrag_core.tables.table_store import TableStore
from graphrag_core.text.documents import decode_document
from graphrag_core.text.filing_chunks import chunk_filing
from graphrag_core.xbrl.arelle_loader import XbrlDocument, bare_load_seconds, loadable_path
from graphrag_core.xbrl.facts import SKIP_REASONS, extract_facts
from graphrag_core.xbrl.metrics import METRIC_IDS, FilingInfo
from graphrag_core.xbrl.releases import observations_for_filing
from graphrag_core.xbrl.supersession import latest, link_observations


def corpus_path() -> Path:
    env = os.environ.get("FILINGS_CORPUS")
    path = Path(env).expanduser().resolve() if env else default_corpus()
    if path is None or not (path / "filings").is_dir():
        sys.exit(
            "corpus not found: set FILINGS_CORPUS to the corpus folder (default ../shared/corpus)"
        )
    return path


@dataclass
class Work:
    ref: FilingRef
    inline: list[Path]  # what arelle loads for the bare timing (clean copies where needed)
    chunks_path: Path  # the filing's chunks, made by the lead's stages before any timing

    def documents(self) -> list[XbrlDocument]:
        return [
            XbrlDocument(d.location, Path(d.location).read_bytes(), Path(d.location))
            for d in self.ref.documents
        ]

    def chunks(self) -> pl.DataFrame:
        return pl.read_parquet(self.chunks_path)


def prepare(corpus: Path, limit: int | None, tmp: Path) -> list[Work]:
    """Filings with inline XBRL and their chunks on disk (intake and chunking: untimed, and
    done by the parent so a memory child's peak is the stage's own)."""
    store = TableStore(tmp / "data")
    source = LocalFolderSource(corpus)
    work = []
    for ref in source.discover():
        inline = []
        for k, d in enumerate(ref.documents):
            doc = XbrlDocument(d.location, Path(d.location).read_bytes(), Path(d.location))
            decoded = decode_document(doc.data, doc.source)
            if decoded.is_inline_xbrl:
                folder = tmp / "clean" / ref.filing_id / str(k)
                folder.mkdir(parents=True, exist_ok=True)
                inline.append(loadable_path(doc, decoded.markup, folder))
        if not inline:
            continue
        chunks_path = tmp / "chunks" / f"{ref.filing_id}.parquet"
        if not chunks_path.exists():
            raw = ingest_filing(ref, source.fetch(ref), store)
            chunks = chunk_filing(raw.meta, raw.documents, store).chunks
            chunks_path.parent.mkdir(parents=True, exist_ok=True)
            chunks.write_parquet(chunks_path)
        work.append(Work(ref, inline, chunks_path))
        if limit and len(work) >= limit:
            break
    (tmp / "work.json").write_text(
        json.dumps(
            [
                {
                    "ref": w.ref.model_dump(mode="json"),
                    "inline": [str(p) for p in w.inline],
                    "chunks": str(w.chunks_path),
                }
                for w in work
            ]
        )
    )
    return work


def load_prepared(tmp: Path) -> list[Work]:
    """The parent's preparation, read back without decoding or parsing anything."""
    return [
        Work(
            FilingRef.model_validate(item["ref"]),
            [Path(p) for p in item["inline"]],
            Path(item["chunks"]),
        )
        for item in json.loads((tmp / "work.json").read_text())
    ]


def run_stage(w: Work, documents: list[XbrlDocument], chunks: pl.DataFrame):
    xbrl = extract_facts(documents, w.ref.filing_id, w.ref.cik, chunks)
    info = FilingInfo.from_facts(
        xbrl.facts,
        w.ref.filing_id,
        cik=w.ref.cik,
        form=w.ref.form,
        filed_date=w.ref.filed_date,
        period_end=w.ref.period_end,
    )
    return xbrl, observations_for_filing(xbrl.facts, chunks, info)


def run_bare(w: Work) -> int:
    return sum(bare_load_seconds(p)[1] for p in w.inline)


def peak_rss_mb(mode: str, work_dir: Path) -> tuple[float, float] | None:
    """Peak RSS of a child that runs only `mode` (stage or bare) over the prepared corpus."""
    args = [sys.executable, __file__, "--memory", mode, "--work-dir", str(work_dir)]
    out = subprocess.run(args, capture_output=True, text=True, env=os.environ.copy())
    try:
        figures = json.loads(out.stdout.strip().splitlines()[-1])
        return figures["peak_rss_mb"], figures["before_mb"]
    except (IndexError, ValueError, KeyError):
        print(f"  (memory child failed: {out.stderr.strip()[-300:]})", file=sys.stderr)
        return None


def high_water_mb() -> float:
    """This process's peak RSS. Linux: VmHWM, which a fresh exec starts from zero (ru_maxrss
    carries the parent's peak across fork+exec, which would hide the child's own)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


def memory_child(mode: str, work_dir: Path) -> None:
    from arelle import Cntlr  # noqa: F401  (imports belong to the baseline, not the stage)

    work = load_prepared(work_dir)
    baseline = high_water_mb()
    for w in work:
        run_stage(w, w.documents(), w.chunks()) if mode == "stage" else run_bare(w)
    print(json.dumps({"peak_rss_mb": round(high_water_mb(), 1), "before_mb": round(baseline, 1)}))


def fmt_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in pairs)

    return "\n".join([line(header), line(["-" * w for w in widths]), *map(line, rows)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--repeat", type=int, default=1, help="rounds per filing; the median is kept"
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="only the first N inline-XBRL filings"
    )
    parser.add_argument("--small", action="store_true", help="a few small filings (seconds)")
    parser.add_argument("--memory", choices=["stage", "bare"], help=argparse.SUPPRESS)
    parser.add_argument("--work-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory:
        memory_child(args.memory, args.work_dir)
        return

    if args.small:
        from bench._small import corpus_subset, work_folder

        with work_folder("xbrl") as tmp:
            measure(args, corpus_subset(corpus_path(), tmp / "corpus"))
    else:
        measure(args, corpus_path())


def measure(args: argparse.Namespace, corpus: Path) -> None:
    print(f"corpus: {corpus}")
    print(
        f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs visible"
    )
    with tempfile.TemporaryDirectory(prefix="bench-xbrl-") as tmp:
        started = time.perf_counter()
        work = prepare(corpus, args.limit, Path(tmp))
        print(
            f"prepared {len(work)} inline-XBRL filings (intake + chunks, untimed) in "
            f"{time.perf_counter() - started:.1f}s"
        )
        (
            run_bare(work[0]),
            run_stage(work[0], work[0].documents(), work[0].chunks()),
        )  # imports, arelle's controller

        rows, observations, skipped = [], [], Counter()
        for w in work:
            documents, chunks = w.documents(), w.chunks()  # what the asset gets from its inputs
            bare_t, stage_t = [], []
            for _ in range(args.repeat):
                t = time.perf_counter()
                elements = run_bare(w)
                bare_t.append(time.perf_counter() - t)
                t = time.perf_counter()
                xbrl, metrics = run_stage(w, documents, chunks)
                stage_t.append(time.perf_counter() - t)
            skipped.update(xbrl.skipped)
            observations.append(metrics.observations)
            rows.append(
                {
                    "filing": w.ref.filing_id,
                    "ticker": w.ref.ticker or "-",
                    "form": w.ref.form or "-",
                    "bytes": sum(len(d.data) for d in documents),
                    "elements": elements,
                    "facts": xbrl.facts.height,
                    "observations": metrics.observations.height,
                    "bare_s": statistics.median(bare_t),
                    "stage_s": statistics.median(stage_t),
                    "cited": int(xbrl.facts["chunk_id"].is_not_null().sum()),
                }
            )
        peak_bare = peak_rss_mb("bare", Path(tmp))
        peak_stage = peak_rss_mb("stage", Path(tmp))
        repaired = damaged_documents(work, rows)

    def mem(figures: tuple[float, float] | None) -> str:
        return (
            f"{figures[0]:.0f} ({figures[0] - figures[1]:+.0f} over imports)" if figures else "n/a"
        )

    df = pl.DataFrame(rows)
    bare_total, stage_total = df["bare_s"].sum(), df["stage_s"].sum()
    worst = df.sort("stage_s", descending=True).row(0, named=True)
    print()
    print(
        f"== throughput over {df.height} filings ({df['bytes'].sum() / 1e6:.1f} MB, "
        f"{df['elements'].sum():,} ix facts, {df['facts'].sum():,} facts after collapsing)"
    )
    print(
        fmt_table(
            ["", "total s", "median s/filing", "worst s/filing", "ix facts/s", "peak RSS MB"],
            [
                [
                    "arelle bare load",
                    f"{bare_total:.2f}",
                    f"{df['bare_s'].median():.3f}",
                    f"{df['bare_s'].max():.3f}",
                    f"{df['elements'].sum() / bare_total:,.0f}",
                    mem(peak_bare),
                ],
                [
                    "xbrl + metrics stage",
                    f"{stage_total:.2f}",
                    f"{df['stage_s'].median():.3f}",
                    f"{df['stage_s'].max():.3f}",
                    f"{df['elements'].sum() / stage_total:,.0f}",
                    mem(peak_stage),
                ],
            ],
        )
    )
    df = df.with_columns(ratio=pl.col("stage_s") / pl.col("bare_s"))
    worst_ratio = df.sort("ratio", descending=True).row(0, named=True)
    print(
        f"stage / bare: {stage_total / bare_total:.2f}x in total (target: within 1.5x); per "
        "filing median "
        f"{df['ratio'].median():.2f}x, worst {worst_ratio['ratio']:.2f}x "
        f"({worst_ratio['ticker']} {worst_ratio['form']}, "
        f"{worst_ratio['bare_s'] * 1000:.0f} ms bare, {worst_ratio['bytes'] / 1e3:.0f} kB)"
    )
    print(
        f"worst filing: {worst['ticker']} {worst['form']} {worst['filing']} — "
        f"{worst['stage_s']:.3f}s for {worst['elements']:,} ix facts"
    )
    print(
        f"facts cited to a chunk: {df['cited'].sum():,} of {df['facts'].sum():,} "
        f"({df['cited'].sum() / max(df['facts'].sum(), 1):.1%}; the rest are ix:hidden)"
    )
    print("skipped facts by reason: " + ", ".join(f"{r}={skipped.get(r, 0)}" for r in SKIP_REASONS))

    all_obs = link_observations(pl.concat([o for o in observations if o.height]))
    restated = int(all_obs["restated"].fill_null(False).sum())
    print(
        f"metric observations: {all_obs.height:,} ({latest(all_obs).height:,} newest; "
        f"{restated} restated values across filings)"
    )
    for line in repaired.values():
        print(line)
    print_coverage(all_obs, df, set(repaired))
    print_issue14(all_obs, df)


def damaged_documents(work: list[Work], rows: list[dict]) -> dict[str, str]:
    """Filings with a document whose undeclared standard prefixes were bound, and a line for
    each: its facts read as it is (the stage before issue 14) and with the prefixes bound."""
    from graphrag_core.xbrl.namespaces import bind_undeclared_prefixes

    facts = {r["filing"]: r["facts"] for r in rows}
    out = {}
    for w in work:
        for path in w.inline:
            repair = bind_undeclared_prefixes(path.read_text(encoding="utf-8", errors="replace"))
            if repair.changed:
                as_is = extract_facts(
                    w.documents(), w.ref.filing_id, w.ref.cik, bind_prefixes=False
                )
                out[w.ref.filing_id] = (
                    f"damaged inline XBRL {Path(w.ref.documents[0].location).name} "
                    f"({w.ref.ticker}): prefixes "
                    f"{', '.join(repair.bound)} bound; facts read as it is: {as_is.facts.height:,} "
                    f"({sum(as_is.skipped.values()):,} skipped), with the prefixes bound: "
                    f"{facts[w.ref.filing_id]:,} "
                    f"({repair.unbound_facts} under the company prefix "
                    f"{', '.join(repair.unbound)} still skipped)"
                )
    return out


def print_coverage(all_obs: pl.DataFrame, df: pl.DataFrame, repaired: set[str]) -> None:
    """Coverage: metric × company over 10-K/10-Q filings with inline XBRL, before → after
    (a damaged document yielded almost nothing before its prefixes were bound: none of its
    metrics count before)."""
    periodic = df.filter(pl.col("form").is_in(["10-K", "10-Q"]))
    filings_per_company = dict(periodic.group_by("ticker").len().iter_rows())
    own = all_obs.filter(
        ~pl.col("observation_id").str.contains(":derived-")
        | (pl.col("derivation") == "revenue − cost_of_revenue")
    )
    before_rows = own.filter(
        ~pl.col("derived").fill_null(False)
        & pl.col("mapping_rule").is_null()
        & (pl.col("source_kind") == "xbrl")
    )

    def yields(frame: pl.DataFrame) -> dict[tuple[str, str], int]:
        counted = (
            frame.join(
                df.select("filing", "ticker", "form"), left_on="filing_id", right_on="filing"
            )
            .filter(pl.col("form").is_in(["10-K", "10-Q"]))
            .group_by("metric", "ticker")
            .agg(pl.col("filing_id").n_unique().alias("n"))
        )
        return {(m, t): n for m, t, n in counted.iter_rows()}

    before, after = (
        yields(before_rows.filter(~pl.col("filing_id").is_in(list(repaired)))),
        yields(own),
    )
    companies = sorted(filings_per_company)
    print()
    print(
        f"== coverage: filings yielding each metric, per company (of its {periodic.height} "
        "10-K/10-Q inline-XBRL filings); "
        "cells show after, with before in brackets where it differs"
    )
    header = ["metric", *companies, "before", "after"]
    table = []
    for metric in METRIC_IDS:
        cells = []
        for t in companies:
            n, b, of = after.get((metric, t), 0), before.get((metric, t), 0), filings_per_company[t]
            cells.append((f"{n}/{of}" if n else "-") + (f"[{b}]" if b != n else ""))
        share_b = sum(before.get((metric, t), 0) for t in companies) / periodic.height
        share_a = sum(after.get((metric, t), 0) for t in companies) / periodic.height
        table.append([metric, *cells, f"{share_b:.0%}", f"{share_a:.0%}"])
    print(fmt_table(header, table))
    core = ["revenue", "net_income", "total_assets", "stockholders_equity"]
    lacking = {t: [m for m in core if not after.get((m, t))] for t in companies}
    lacking = {t: ms for t, ms in lacking.items() if ms}
    print(
        "companies lacking a core metric (revenue, net income, total assets, equity): "
        f"{lacking or 'none'}"
    )


def print_issue14(all_obs: pl.DataFrame, df: pl.DataFrame) -> None:
    current = latest(all_obs)
    quarters = current.filter(
        pl.col("fiscal_period").is_in(["Q1", "Q2", "Q3", "Q4"]) & (pl.col("metric") == "revenue")
    )
    derived_q = quarters.filter(pl.col("derived").fill_null(False))
    print()
    print("== issue 14: derived values, earnings releases, recasts")
    print(
        f"quarterly revenue values (company × quarter, current): {quarters.height} after, "
        f"{quarters.height - derived_q.height} before; derived: {derived_q.height} "
        f"({', '.join(sorted(derived_q['fiscal_label'].unique()))})"
    )
    derived = current.filter(pl.col("derived").fill_null(False))
    formula = (
        pl.col("derivation")
        .str.replace_all(r"(\w+)-FY\d{4}", "${1}")
        .str.replace_all(r"FY\d{4}", "FY")
    )
    by = derived.group_by(formula).len().sort("len", descending=True)
    print("derived values by formula: " + ", ".join(f"{d} {n}" for d, n in by.iter_rows()))
    gp = derived.filter(pl.col("derivation") == "revenue − cost_of_revenue")
    print(
        f"gross profit derived as revenue − cost of revenue: {gp.height} values in "
        f"{gp['filing_id'].n_unique()} filings"
    )
    mapped = all_obs.filter(
        pl.col("mapping_rule").is_not_null() & (pl.col("source_kind") == "xbrl")
    )
    print(
        "company concepts mapped by label and place: "
        + (
            ", ".join(
                f"{m} {n}" for m, n in mapped.group_by("metric").len().sort("metric").iter_rows()
            )
            or "none"
        )
    )
    releases = all_obs.filter(pl.col("source_kind") == "press_release")
    tables = releases.filter(pl.col("mapping_rule").str.starts_with("release table")).height
    print(
        f"earnings-release observations: {releases.height} from "
        f"{releases['filing_id'].n_unique()} filings "
        f"({tables} from tables, "
        f"{releases.height - tables - releases['derived'].fill_null(False).sum()} from "
        "sentences)"
    )
    reasons = (
        all_obs.filter(pl.col("supersede_reason").is_not_null())
        .group_by("supersede_reason")
        .len()
        .sort("supersede_reason")
    )
    print(
        "superseded with a reason: "
        + (", ".join(f"{r} {n}" for r, n in reasons.iter_rows()) or "none")
    )
    for row in all_obs.filter(
        pl.col("supersede_reason").is_in(["recast", "restatement", "unknown"])
    ).iter_rows(named=True):
        ticker = df.filter(pl.col("filing") == row["filing_id"])["ticker"]
        print(
            f"  {ticker[0] if ticker.len() else row['cik']} {row['metric']} "
            f"{row['fiscal_label']}: {row['supersede_reason']} — "
            f"{row['supersede_detail'][:110]}"
        )


if __name__ == "__main__":
    main()
