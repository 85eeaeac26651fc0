#!/usr/bin/env python
"""Extraction benchmark: throughput of both backends and what the gates let through.

1. The corpus (`FILINGS_CORPUS`, default `../shared/corpus`) goes through the real intake and
   chunking stages; its narrative chunks (the ones an extractor is given) are the workload.
2. `rules` backend: chunks/s over all of them (extraction only, then extraction + gates).
3. `openai` backend against the loopback OpenAI-compatible server (`tests/openai_server.py`, run
   as a subprocess so it does not share the client's interpreter) with an injected 100 ms
   latency per request, at concurrency 1, 8, 32 and 64: chunks/s and the ratio to serial.
4. Each reply of that server holds, besides one triple that is true to its passage, triples
   planted to be wrong in one way each (an invented or paraphrased quote, a computed value, a
   relation outside the vocabulary, a metric from prose, a result labelled as guidance, a
   negation or an expectation stated as fact, a hypothetical stated as fact); the gates' verdicts
   on them give the share of planted bad triples that got through (target 0).

It prints figures, never pass/fail, and exits 0.

    .venv/bin/python bench/extract.py [--latency-ms 100] [--levels 1,8,32,64] [--rounds 10]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import polars as pl

from graphrag_core.extraction import Filer, OpenAIBackend, RulesBackend, extract_chunks
from graphrag_core.extraction.batch import chunk_inputs, narrative_chunks
from graphrag_core.extraction.gates import (
    ChunkContext,
    is_forward_looking,
    is_hypothetical,
    is_negated,
    validate_extractions,
)
from graphrag_core.text.sentences import sentence_spans

GOOD = "bench good"
# kind → subject of the planted triple; the gates never look at the subject, the bench does.
PLANTED = (
    "invented_quote", "paraphrased_quote", "computed_value", "unknown_relation", "metric_from_text",
    "result_as_guidance", "negation_as_fact", "expectation_as_fact", "hypothetical_as_fact",
)
INVENTED = "We rely exclusively on Initech Corporation to manufacture all of our products."


def _plain(sentence: str) -> bool:
    return not (is_negated(sentence) or is_hypothetical(sentence) or is_forward_looking(sentence))


def _triple(subject: str, relation: str, obj: str, evidence: str, value=None, unit=None) -> dict:
    return {"subject": subject, "relation": relation, "object": obj, "value": value, "unit": unit,
            "period": None, "evidence": evidence}


def _paraphrase(sentence: str) -> str:
    words = sentence.split(" ")
    if len(words) > 3:
        words[1], words[2] = words[2], words[1]
        if " ".join(words) != sentence:
            return " ".join(words)
    return "In short, " + sentence


def _computed(passage: str) -> float:
    """A value derived from the passage's numbers (a sum, then a ratio) that it never states."""
    stated = ChunkContext("x", passage, 0).stated_numbers
    numbers = sorted(n for n in stated if n > 0)[:2]
    candidates = [sum(numbers) if len(numbers) == 2 else Decimal("4242.17")]
    candidates += [c * Decimal("1.37") for c in list(candidates)] + [Decimal("98765.4321")]
    return float(next(c for c in candidates if all(abs(c - s) > Decimal("1e-6") for s in stated)))


@cache
def planted_reply(passage: str) -> str:
    """The loopback server's reply to a passage: one good triple and the planted bad ones.
    Memoized, so the test server's own work does not compete with the client being measured."""
    sentences = [passage[s:e] for s, e in sentence_spans(passage)]
    plain = [s for s in sentences if _plain(s)]
    if not plain:
        return json.dumps({"triples": []})
    anchor = plain[0]
    stated = sorted(ChunkContext("x", passage, 0).stated_numbers)
    triples = [
        _triple(GOOD, "EXPOSED_TO_RISK", "bench topic", anchor),
        _triple("invented_quote", "SUPPLIES", "Filer", INVENTED),
        _triple("paraphrased_quote", "SUPPLIES", "Filer", _paraphrase(anchor)),
        _triple("computed_value", "CUSTOMER_OF", "Filer", anchor, _computed(passage), "%"),
        _triple("unknown_relation", "ACQUIRED", "Filer", anchor),
        _triple("metric_from_text", "REPORTS_METRIC", "revenue", anchor,
                float(stated[-1]) if stated else None, "USD" if stated else None),
        _triple("result_as_guidance", "GUIDES", "revenue", anchor),
    ]
    negated = next((s for s in sentences if is_negated(s)), None)
    if negated:
        triples.append(_triple("negation_as_fact", "SUPPLIES", "Filer", negated))
    forward = next((s for s in sentences if is_forward_looking(s) and not is_hypothetical(s) and not is_negated(s)), None)
    if forward:
        triples.append(_triple("expectation_as_fact", "SUPPLIES", "Filer", forward))
    hypothetical = next((s for s in sentences if is_hypothetical(s) and not is_negated(s)), None)
    if hypothetical:
        triples.append(_triple("hypothetical_as_fact", "SUPPLIES", "Filer", hypothetical))
    return json.dumps({"triples": triples})


# ---------------------------------------------------------------------------------------------


def corpus_narrative_chunks(corpus: Path, work: Path) -> tuple[pl.DataFrame, dict[str, Filer], pl.DataFrame]:
    from graphrag_core.intake.local_folder import LocalFolderSource
    from graphrag_core.intake.raw_filing import ingest_filing
    from graphrag_core.tables.table_store import TableStore
    from graphrag_core.text.filing_chunks import chunk_filing

    source = LocalFolderSource(corpus)
    store = TableStore(work)
    frames, filers = [], {}
    for ref in source.discover():
        try:
            raw = ingest_filing(ref, source.fetch(ref), store)
            chunks = chunk_filing(raw.meta, raw.documents, store).chunks
        except Exception as exc:  # a filing the pipeline refuses is reported, not benchmarked
            print(f"  skipped {ref.filing_id}: {exc}", file=sys.stderr)
            continue
        filers[ref.filing_id] = Filer.of(raw.meta)
        frames.append(chunks)
    all_chunks = pl.concat(frames)
    return narrative_chunks(all_chunks), filers, all_chunks


def rules_figures(narrative: pl.DataFrame, filers: dict[str, Filer], corpus: Path) -> None:
    from graphrag_core.intake.local_folder import LocalFolderSource

    backend = RulesBackend.from_rows(LocalFolderSource(corpus).company_tickers())
    inputs = [i for fid, part in narrative.group_by("filing_id", maintain_order=True)
              for i in chunk_inputs(part, filers[fid[0]])]
    t0 = time.perf_counter()
    extractions = extract_chunks(inputs, backend)
    extract_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    validated = validate_extractions(extractions, narrative)
    validate_s = time.perf_counter() - t0
    accepted = validated.filter(pl.col("status") == "accepted")
    rejected = validated.filter(pl.col("status") == "rejected")
    print(f"rules backend ({backend.prompt_version}, gazetteer of {len(backend.gazetteer)} names)")
    print(f"  narrative chunks        {len(inputs)} in {extractions['filing_id'].n_unique()} filings, "
          f"{int(narrative['token_count'].sum())} tokens")
    print(f"  extraction              {extract_s:.2f} s  = {len(inputs) / extract_s:,.0f} chunks/s")
    print(f"  extraction + gates      {extract_s + validate_s:.2f} s  = "
          f"{len(inputs) / (extract_s + validate_s):,.0f} chunks/s")
    by_relation = dict(accepted.group_by("relation").agg(pl.col("support").sum()).sort("relation").iter_rows())
    reasons = dict(rejected.group_by("reason").agg(pl.col("support").sum()).sort("reason").iter_rows())
    print(f"  candidates accepted     {int(accepted['support'].sum())} as {accepted.height} edges: {by_relation}")
    print(f"  candidates rejected     {int(rejected['support'].sum() or 0)}: {reasons}")


def start_server(latency_ms: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.openai_server", "--latency-ms", str(latency_ms),
         "--script", "bench.extract:planted_reply"],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    line = process.stdout.readline()
    if not line:
        raise RuntimeError("the loopback server did not start")
    return process, f"http://127.0.0.1:{json.loads(line)['port']}/v1"


def openai_figures(narrative: pl.DataFrame, filers: dict[str, Filer], latency_ms: float,
                   levels: list[int], rounds: int) -> None:
    inputs = [i for fid, part in narrative.group_by("filing_id", maintain_order=True)
              for i in chunk_inputs(part, filers[fid[0]])]
    process, base_url = start_server(latency_ms)
    try:
        print(f"\nopenai backend vs loopback server (+{latency_ms:g} ms per request, server in its own process)")
        print(f"  {'concurrency':>11} {'chunks':>7} {'seconds':>8} {'chunks/s':>9} {'vs serial':>9} "
              f"{'p50 ms':>7} {'p99 ms':>7} {'client CPU ms/chunk':>20}")
        # Warm-up (not reported): the server computes its replies once, connections open.
        warm = inputs[: min(len(inputs), max(levels) * rounds)]
        outputs = [extract_chunks(warm, OpenAIBackend(base_url=base_url, model="bench",
                                                      concurrency=max(levels), timeout_s=30))]
        serial = None
        for level in levels:
            # Enough chunks for `rounds` full waves at this concurrency (serial: `rounds` chunks x4).
            n = min(len(inputs), max(4 * rounds, level * rounds))
            batch = inputs[:n]
            backend = OpenAIBackend(base_url=base_url, model="bench", concurrency=level,
                                    timeout_s=30, max_retries=2)
            t0, cpu0 = time.perf_counter(), time.process_time()
            table = extract_chunks(batch, backend)
            seconds = time.perf_counter() - t0
            cpu_ms = (time.process_time() - cpu0) / n * 1000
            rate = n / seconds
            serial = serial or rate
            lat = table["latency_ms"]
            failed = int((table["status"] != "ok").sum())
            print(f"  {level:>11} {n:>7} {seconds:>8.2f} {rate:>9.1f} {rate / serial:>8.1f}x "
                  f"{lat.median():>7.0f} {lat.quantile(0.99):>7.0f} {cpu_ms:>20.2f}"
                  + (f"  ({failed} not ok)" if failed else ""))
            outputs.append(table)
    finally:
        process.stdin.close()
        process.wait(timeout=10)
    return pl.concat(outputs).unique("chunk_id", keep="first")


def gate_figures(extractions: pl.DataFrame, narrative: pl.DataFrame) -> None:
    validated = validate_extractions(extractions, narrative)
    print(f"\nplanted triples through the gates ({extractions.height} replies)")
    print(f"  {'kind':<22} {'planted':>7} {'got through':>11}  rejected as")
    through_total = planted_total = 0
    for kind in (GOOD, *PLANTED):
        rows = validated.filter(pl.col("subject").eq(kind) | pl.col("object").eq(kind)
                                | (pl.col("proposed_relation").str.contains("SUPPLIES") & pl.col("object").eq(kind)))
        if kind == "hypothetical_as_fact":
            # The right outcome is a rewrite: the filer's exposure, not a supply fact.
            rows = validated.filter(pl.col("subject").eq(kind) | pl.col("object").eq(kind))
            accepted = rows.filter(pl.col("status") == "accepted")
            through = int(accepted.filter(pl.col("relation") != "EXPOSED_TO_RISK")["support"].sum() or 0)
        else:
            accepted = rows.filter(pl.col("status") == "accepted")
            through = int(accepted["support"].sum() or 0)
        planted = int(rows["support"].sum() or 0)
        reasons = dict(rows.filter(pl.col("status") == "rejected").group_by("reason").len().sort("reason").iter_rows())
        if kind == "hypothetical_as_fact":
            rewritten = int(accepted.filter(pl.col("adjustment") == "hypothetical_to_risk")["support"].sum() or 0)
            reasons = {"kept as EXPOSED_TO_RISK": rewritten, **reasons}
        label = "kept" if kind == GOOD else "got through"
        print(f"  {kind:<22} {planted:>7} {through:>11}  {reasons if kind != GOOD else f'({label}: {through}/{planted})'}")
        if kind != GOOD:
            through_total += through
            planted_total += planted
    share = through_total / planted_total if planted_total else 0.0
    print(f"  share of planted bad triples that got through: {through_total}/{planted_total} = {share:.1%}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--levels", default="1,8,32,64")
    parser.add_argument("--rounds", type=int, default=10, help="waves of requests per concurrency level")
    args = parser.parse_args(argv)
    from graphrag_core.settings import default_corpus

    corpus = Path(os.environ["FILINGS_CORPUS"]) if os.environ.get("FILINGS_CORPUS") else default_corpus()
    if corpus is None:
        print("no corpus: set FILINGS_CORPUS", file=sys.stderr)
        return 0
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs "
          f"(load average {load}); corpus {corpus}")
    with tempfile.TemporaryDirectory() as work:
        t0 = time.perf_counter()
        narrative, filers, _ = corpus_narrative_chunks(corpus, Path(work))
        print(f"corpus intake + chunking: {time.perf_counter() - t0:.1f} s\n")
        rules_figures(narrative, filers, corpus)
        replies = openai_figures(narrative, filers, args.latency_ms,
                                 [int(x) for x in args.levels.split(",")], args.rounds)
        gate_figures(replies, narrative)
    return 0


if __name__ == "__main__":
    sys.exit(main())
