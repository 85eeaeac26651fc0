#!/usr/bin/env python
"""Extraction benchmark: throughput of both backends and what the gates let through.

1. The corpus (`FILINGS_CORPUS`, default `../shared/corpus`) goes through the real intake and
   chunking stages; its narrative chunks (the ones an extractor is given) are the workload.
2. `rules` backend: chunks/s over all of them (extraction only, then extraction + gates), by the
   wall clock and per CPU-second (the machine is shared: the CPU figure is the steadier one),
   then its precision/recall/F1 on the reviewed gold set (`filings-graph eval-extraction`), per
   split (see tests/fixtures/extraction_gold/README.md).
3. `openai` backend against the loopback OpenAI-compatible server (`tests/openai_server.py`, run
   as a subprocess so it does not share the client's interpreter) with an injected 100 ms
   latency per request, at concurrency 1, 8, 32 and 64: chunks/s and the ratio to serial.
4. Each reply of that server holds, besides one triple that is true to its passage, triples
   planted to be wrong in one way each (an invented or paraphrased quote, a computed value, a
   relation outside the vocabulary, a metric from prose, a result labelled as guidance, a
   negation or an expectation stated as fact, a hypothetical stated as fact); the gates' verdicts
   on them give the share of planted bad triples that got through (target 0). The planted
   triples speak of the filer as "We", and of a counterparty by a capitalized word of the
   quoted sentence, so that they pass the grounding gate and meet the gate they were planted for.

It prints figures, never pass/fail, and exits 0.

    .venv/bin/python bench/extract.py [--latency-ms 100] [--levels 1,8,32,64] [--rounds 10]
                                      [--small]

`--small`: a few small filings (bench/_small.py), concurrency 1 and 2 for one round at 1 ms
(seconds), for the test suite.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
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

from graphrag_core.common.model_endpoint import ModelEndpoint
from graphrag_core.extraction import Filer, OpenAIBackend, RulesBackend, extract_chunks
from graphrag_core.extraction.agreement import format_agreements
from graphrag_core.extraction.batch import chunk_inputs, narrative_chunks
from graphrag_core.extraction.clauses import FORWARD_FIGURE, is_boilerplate, mood
from graphrag_core.extraction.evaluation import evaluate, format_report, load_gold_sets
from graphrag_core.extraction.gates import (
    ChunkContext,
    is_forward_looking,
    is_hypothetical,
    is_negated,
)
from graphrag_core.extraction.spans import collapse_whitespace
from graphrag_core.extraction.validated_triples import validate_extractions
from graphrag_core.settings import ExtractionSettings
from graphrag_core.text.sentences import sentence_spans

GOOD = "bench good"
# kind → the object (or, for a relationship, the quote) that marks the planted triple.
PLANTED = (
    "invented_quote",
    "paraphrased_quote",
    "computed_value",
    "unknown_relation",
    "metric_from_text",
    "result_as_guidance",
    "negation_as_fact",
    "expectation_as_fact",
    "hypothetical_as_fact",
)
# Relationships need a counterparty the quote names; their kind is known by their quote.
BY_QUOTE = ("negation_as_fact", "expectation_as_fact", "hypothetical_as_fact")
INVENTED = "We rely exclusively on Initech Corporation to manufacture all of our products."
_NAME = re.compile(r"(?<=\s)[A-Z][A-Za-z&\-]{2,}(?:\s+[A-Z][A-Za-z&\-]{2,})*")
_NOT_NAMES = frozenset(
    "We Our Us The Company In On At For If As January February March April May June July August "
    "September October November December".split()
)


def _plain(sentence: str) -> bool:
    """A statement of fact: nothing negated, conditional or forward-looking, not even a figure's
    outlook ("2025 Outlook", "forecasts for 2025")."""
    return not (
        is_negated(sentence)
        or is_hypothetical(sentence)
        or is_forward_looking(sentence)
        or FORWARD_FIGURE.search(sentence)
    )


def _triple(subject: str, relation: str, obj: str, evidence: str, value=None, unit=None) -> dict:
    return {
        "subject": subject,
        "relation": relation,
        "object": obj,
        "value": value,
        "value_low": None,
        "value_high": None,
        "unit": unit,
        "period": None,
        "evidence": evidence,
    }


def _paraphrase(sentence: str) -> str:
    """The sentence with two different adjacent words swapped: a quote that is not in the text."""
    words = sentence.split(" ")
    for k in range(len(words) - 1):
        a, b = words[k], words[k + 1]
        if a.isalpha() and b.isalpha() and a.lower() != b.lower():
            return " ".join([*words[:k], b, a, *words[k + 2 :]])
    return "In short, " + sentence


def _computed(passage: str) -> float:
    """A value derived from the passage's numbers (a sum, then a ratio) that it never states (as
    the value gate compares: to a billionth)."""
    stated = ChunkContext("x", passage, 0).stated_numbers
    numbers = sorted(n for n in stated if n > 0)[:2]
    candidates = [sum(numbers) if len(numbers) == 2 else Decimal("4242.17")]
    candidates += [c * Decimal("1.37") for c in list(candidates)] + [Decimal("98765.4321")]
    return float(
        next(
            c
            for c in candidates
            if not any(abs(c - s) <= Decimal("1e-6") * max(Decimal(1), abs(s)) for s in stated)
        )
    )


def _named(sentence: str, wanted) -> str | None:
    """A capitalized name in `sentence` whose clause has the mood `wanted` wants: the planted
    relationship is anchored there, so it is that clause the gates must read."""
    for m in _NAME.finditer(sentence):
        if m.group().split()[0] in _NOT_NAMES:
            continue
        if wanted(mood(sentence, [(m.start(), m.end())])):
            return m.group()
    return None


_WANTED = {
    "negation_as_fact": lambda m: m.negated,
    "expectation_as_fact": lambda m: m.forward and not m.hypothetical and not m.negated,
    "hypothetical_as_fact": lambda m: m.hypothetical and not m.negated,
}


@cache
def _plant(passage: str) -> tuple[tuple[str, dict], ...]:
    """(kind, triple) of every triple the server answers for `passage`."""
    sentences = [passage[s:e] for s, e in sentence_spans(passage)]

    def legend(sentence: str) -> bool:
        start = passage.find(sentence)
        return is_boilerplate(passage, start, start + len(sentence))

    plain = [s for s in sentences if _plain(s) and not legend(s)]
    if not plain:
        return ()
    anchor = plain[0]
    stated = sorted(ChunkContext("x", passage, 0).stated_numbers)
    planted = [
        (GOOD, _triple("We", "EXPOSED_TO_RISK", GOOD, anchor)),
        ("invented_quote", _triple("We", "EXPOSED_TO_RISK", "invented_quote", INVENTED)),
        (
            "paraphrased_quote",
            _triple("We", "EXPOSED_TO_RISK", "paraphrased_quote", _paraphrase(anchor)),
        ),
        (
            "computed_value",
            _triple("We", "EXPOSED_TO_RISK", "computed_value", anchor, _computed(passage), "%"),
        ),
        ("unknown_relation", _triple("We", "ACQUIRED", "unknown_relation", anchor)),
        (
            "metric_from_text",
            _triple(
                "We",
                "REPORTS_METRIC",
                "metric_from_text",
                anchor,
                float(stated[-1]) if stated else None,
                "USD" if stated else None,
            ),
        ),
        ("result_as_guidance", _triple("We", "GUIDES", "result_as_guidance", anchor)),
    ]
    used: set[str] = set()
    for kind, wanted in _WANTED.items():
        for sentence in sentences:
            name = (
                _named(sentence, wanted) if sentence not in used and not legend(sentence) else None
            )
            if name:
                planted.append((kind, _triple(name, "SUPPLIES", "We", sentence)))
                used.add(sentence)
                break
    return tuple(planted)


def planted_reply(passage: str) -> str:
    """The loopback server's reply to a passage: one good triple and the planted bad ones.
    Memoized, so the test server's own work does not compete with the client being measured."""
    return json.dumps({"triples": [t for _, t in _plant(passage)]})


def planted_kinds(passage: str) -> dict[str, str]:
    """The quote of each planted relationship → its kind (the server's reply, recomputed)."""
    return {
        collapse_whitespace(t["evidence"]): kind for kind, t in _plant(passage) if kind in BY_QUOTE
    }


# ---------------------------------------------------------------------------------------------


Filers = dict[str, tuple[Filer, int | None]]  # filing id → (filer, fiscal year)


def corpus_narrative_chunks(corpus: Path, work: Path) -> tuple[pl.DataFrame, Filers, pl.DataFrame]:
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
        filers[ref.filing_id] = (Filer.of(raw.meta), raw.meta.fiscal_year)
        frames.append(chunks)
    all_chunks = pl.concat(frames)
    return narrative_chunks(all_chunks), filers, all_chunks


def inputs_of(narrative: pl.DataFrame, filers: Filers, all_chunks: pl.DataFrame) -> list:
    return [
        i
        for (fid,), part in narrative.group_by("filing_id", maintain_order=True)
        for i in chunk_inputs(
            part,
            filers[fid][0],
            filers[fid][1],
            context=all_chunks.filter(pl.col("filing_id") == fid),
        )
    ]


def validate(extractions: pl.DataFrame, narrative: pl.DataFrame, filers: Filers) -> pl.DataFrame:
    """The gates per filing, as the pipeline runs them: who "we" are is the filing's filer."""
    frames = []
    for (fid,), part in extractions.group_by("filing_id", maintain_order=True):
        filer, year = filers[fid]
        frames.append(
            validate_extractions(part, narrative.filter(pl.col("filing_id") == fid), filer, year)
        )
    return pl.concat(frames)


def rules_figures(
    narrative: pl.DataFrame, filers: Filers, all_chunks: pl.DataFrame, corpus: Path
) -> None:
    from graphrag_core.intake.local_folder import LocalFolderSource

    backend = RulesBackend.from_rows(LocalFolderSource(corpus).company_tickers())
    inputs = inputs_of(narrative, filers, all_chunks)
    t0, cpu0 = time.perf_counter(), time.process_time()
    extractions = extract_chunks(inputs, backend)
    extract_s, extract_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    t0, cpu0 = time.perf_counter(), time.process_time()
    validated = validate(extractions, narrative, filers)
    validate_s, validate_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    accepted = validated.filter(pl.col("status") == "accepted")
    rejected = validated.filter(pl.col("status") == "rejected")
    n = len(inputs)
    print(f"rules backend ({backend.prompt_version}, gazetteer of {len(backend.gazetteer)} names)")
    print(
        f"  narrative chunks        {n} in {extractions['filing_id'].n_unique()} filings, "
        f"{int(narrative['token_count'].sum())} tokens"
    )
    print(
        f"  extraction              {extract_s:.2f} s = {n / extract_s:,.0f} chunks/s wall; "
        f"{extract_cpu:.2f} CPU-s = {n / extract_cpu:,.0f} chunks per CPU-second (target > 300)"
    )
    print(
        f"  extraction + gates      {extract_s + validate_s:.2f} s = "
        f"{n / (extract_s + validate_s):,.0f} chunks/s wall; "
        f"{n / (extract_cpu + validate_cpu):,.0f} chunks per CPU-second"
    )
    by_relation = dict(
        accepted.group_by("relation").agg(pl.col("support").sum()).sort("relation").iter_rows()
    )
    reasons = dict(
        rejected.group_by("reason").agg(pl.col("support").sum()).sort("reason").iter_rows()
    )
    adjusted = dict(
        accepted.filter(pl.col("adjustment").is_not_null())
        .group_by("adjustment")
        .len()
        .sort("adjustment")
        .iter_rows()
    )
    print(
        f"  candidates accepted     {int(accepted['support'].sum())} as {accepted.height} "
        f"edges: {by_relation}"
    )
    print(f"  adjusted by the gates   {adjusted}")
    print(f"  candidates rejected     {int(rejected['support'].sum() or 0)}: {reasons}")
    gold_figures(backend)


def learned_figures(
    narrative: pl.DataFrame, filers: Filers, all_chunks: pl.DataFrame, corpus: Path
) -> None:
    """The rules alone and the rules with the learned relation classifier on the same chunks,
    alternately (rules, learned, rules, learned), so that both see the same machine load."""
    from graphrag_core.extraction.backends import build_backend
    from graphrag_core.intake.local_folder import LocalFolderSource
    from graphrag_core.retrieval.onnx_embedder import OnnxEmbedder
    from graphrag_core.settings import Settings

    settings = Settings()
    tickers = LocalFolderSource(corpus).company_tickers()
    rules = RulesBackend.from_rows(tickers)
    try:
        encoder = OnnxEmbedder(settings.retrieval)
        # The session's first run allocates its buffers: a pipeline pays that once, not per chunk.
        encoder.embed(["We purchase parts from Acme under a supply agreement."])

        def learned():  # a fresh one each round: none starts with the last round's vectors
            return build_backend(
                settings.extraction.model_copy(update={"learned": True}),
                tickers=tickers,
                encoder=encoder,
            )

        rounds = [rules, learned(), rules, learned()]
    except Exception as exc:  # no weights, or no model: say so, measure nothing
        print(f"learned relation classifier: not measured ({exc})")
        return
    inputs = inputs_of(narrative, filers, all_chunks)
    n = len(inputs)
    print(
        f"rules alone vs rules + learned classifier ({rounds[1].prompt_version}, threshold "
        f"{settings.extraction.learned_threshold}), {n} chunks, alternately:"
    )
    for backend in rounds:
        t0, cpu0 = time.perf_counter(), time.process_time()
        extractions = extract_chunks(inputs, backend)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        validated = validate(extractions, narrative, filers)
        company = validated.filter(
            (pl.col("status") == "accepted")
            & pl.col("relation").is_in(
                ["SUPPLIES", "CUSTOMER_OF", "COMPETES_WITH", "SUBSIDIARY_OF"]
            )
        )
        print(
            f"  {backend.name:<14} {n / wall:7,.0f} chunks/s wall, {n / cpu:7,.0f} per CPU-second; "
            f"company edges accepted {company.height}"
        )


def gold_figures(backend) -> None:
    """The backend on the gold set and the frozen blind sets, splits side by side, and the
    annotators' agreement on each blind set's chunks labelled twice (no per-case error is
    printed)."""
    settings = ExtractionSettings()
    cases = load_gold_sets(settings.gold_set, settings.blind_set, settings.blind2_set)
    report = evaluate(cases, backend)
    print(
        f"\n{backend.name} backend on the reviewed gold set ({_shown(settings.gold_set)}) "
        f"and the blind sets ({_shown(settings.blind_set)}, {_shown(settings.blind2_set)}); "
        "targets on blind: company relations P >= 0.95 and "
        "R >= 0.75, "
        "GUIDES P >= 0.9; gate negatives 100%"
    )
    print("\n".join("  " + line for line in format_report(report).splitlines()))
    print("\n".join("  " + line for line in format_agreements(cases).splitlines()))


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def start_server(latency_ms: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.openai_server",
            "--latency-ms",
            str(latency_ms),
            "--script",
            "bench.extract:planted_reply",
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    if not line:
        raise RuntimeError("the loopback server did not start")
    return process, f"http://127.0.0.1:{json.loads(line)['port']}/v1"


def _endpoint(base_url: str, *, concurrency: int, max_retries: int) -> ModelEndpoint:
    return ModelEndpoint(
        use="extraction",
        base_url=base_url,
        model="bench",
        concurrency=concurrency,
        timeout_s=30,
        max_retries=max_retries,
    )


def openai_figures(
    narrative: pl.DataFrame,
    filers: Filers,
    all_chunks: pl.DataFrame,
    latency_ms: float,
    levels: list[int],
    rounds: int,
) -> pl.DataFrame:
    inputs = inputs_of(narrative, filers, all_chunks)
    process, base_url = start_server(latency_ms)
    try:
        print(
            f"\nopenai backend vs loopback server (+{latency_ms:g} ms per request, server "
            "in its own process)"
        )
        print(
            f"  {'concurrency':>11} {'chunks':>7} {'seconds':>8} {'chunks/s':>9} {'vs serial':>9} "
            f"{'p50 ms':>7} {'p99 ms':>7} {'client CPU ms/chunk':>20}"
        )
        # Warm-up (not reported): the server computes its replies once, connections open.
        warm = inputs[: min(len(inputs), max(levels) * rounds)]
        outputs = [
            extract_chunks(
                warm,
                OpenAIBackend(_endpoint(base_url, concurrency=max(levels), max_retries=4)),
            )
        ]
        serial = None
        for level in levels:
            # Enough chunks for `rounds` full waves at this concurrency (serial: `rounds` chunks
            # x4).
            n = min(len(inputs), max(4 * rounds, level * rounds))
            batch = inputs[:n]
            backend = OpenAIBackend(_endpoint(base_url, concurrency=level, max_retries=2))
            t0, cpu0 = time.perf_counter(), time.process_time()
            table = extract_chunks(batch, backend)
            seconds = time.perf_counter() - t0
            cpu_ms = (time.process_time() - cpu0) / n * 1000
            rate = n / seconds
            serial = serial or rate
            lat = table["latency_ms"]
            failed = int((table["status"] != "ok").sum())
            print(
                f"  {level:>11} {n:>7} {seconds:>8.2f} {rate:>9.1f} {rate / serial:>8.1f}x "
                f"{lat.median():>7.0f} {lat.quantile(0.99):>7.0f} {cpu_ms:>20.2f}"
                + (f"  ({failed} not ok)" if failed else "")
            )
            outputs.append(table)
    finally:
        process.stdin.close()
        process.wait(timeout=10)
    return pl.concat(outputs).unique("chunk_id", keep="first")


def _kind(row: dict, by_quote: dict[tuple[str, str], str]) -> str | None:
    if row["object"] in (GOOD, *PLANTED):
        return row["object"]
    for ev in row["evidence"] or []:
        kind = by_quote.get((ev["chunk_id"], collapse_whitespace(ev["quote"])))
        if kind:
            return kind
    return None


def gate_figures(extractions: pl.DataFrame, narrative: pl.DataFrame, filers: Filers) -> None:
    validated = validate(extractions, narrative, filers)
    texts = dict(narrative.select("chunk_id", "text").iter_rows())
    by_quote = {
        (chunk_id, quote): kind
        for chunk_id in extractions["chunk_id"]
        for quote, kind in planted_kinds(texts[chunk_id]).items()
    }
    validated = validated.with_columns(
        pl.Series(
            "kind", [_kind(r, by_quote) for r in validated.iter_rows(named=True)], dtype=pl.String
        )
    )
    print(f"\nplanted triples through the gates ({extractions.height} replies)")
    print(f"  {'kind':<22} {'planted':>7} {'got through':>11}  rejected as")
    through_total = planted_total = 0
    for kind in (GOOD, *PLANTED):
        rows = validated.filter(pl.col("kind") == kind)
        accepted = rows.filter(pl.col("status") == "accepted")
        # A relationship rewritten as the filer's exposure (a hypothetical, or a forward clause
        # inside a conditional one) is not a supply fact: it did not get through as one.
        through = int(
            accepted.filter(pl.col("adjustment").fill_null("") != "hypothetical_to_risk")[
                "support"
            ].sum()
            or 0
        )
        planted = int(rows["support"].sum() or 0)
        reasons = dict(
            rows.filter(pl.col("status") == "rejected")
            .group_by("reason")
            .len()
            .sort("reason")
            .iter_rows()
        )
        rewritten = int(
            accepted.filter(pl.col("adjustment") == "hypothetical_to_risk")["support"].sum() or 0
        )
        if rewritten:
            reasons = {"kept as EXPOSED_TO_RISK": rewritten, **reasons}
        print(
            f"  {kind:<22} {planted:>7} {through:>11}  "
            f"{reasons if kind != GOOD else f'(kept: {through}/{planted})'}"
        )
        if kind != GOOD:
            through_total += through
            planted_total += planted
    share = through_total / planted_total if planted_total else 0.0
    print(
        f"  share of planted bad triples that got through: {through_total}/{planted_total} "
        f"= {share:.1%}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=100.0)
    parser.add_argument("--levels", default="1,8,32,64")
    parser.add_argument(
        "--rounds", type=int, default=10, help="waves of requests per concurrency level"
    )
    parser.add_argument(
        "--gold-only",
        action="store_true",
        help="only the rules backend on the gold and blind sets (skip intake, throughput and the "
        "openai part)",
    )
    parser.add_argument("--small", action="store_true", help="a few small filings (seconds)")
    parser.add_argument(
        "--learned",
        action="store_true",
        help="only throughput: the rules alone and with the learned relation classifier, side "
        "by side on the corpus's narrative chunks (no gold, blind or openai figures)",
    )
    args = parser.parse_args(argv)
    from graphrag_core.settings import default_corpus

    corpus = (
        Path(os.environ["FILINGS_CORPUS"]) if os.environ.get("FILINGS_CORPUS") else default_corpus()
    )
    if corpus is None:
        print("no corpus: set FILINGS_CORPUS", file=sys.stderr)
        return 0
    if args.small:
        from bench._small import corpus_subset, work_folder

        with work_folder("extract") as tmp:
            small = {"latency_ms": 1.0, "levels": "1,2", "rounds": 1}
            return measure(
                argparse.Namespace(**{**vars(args), **small}),
                corpus_subset(corpus, tmp / "corpus"),
            )
    return measure(args, corpus)


def measure(args: argparse.Namespace, corpus: Path) -> int:
    if args.learned:
        with tempfile.TemporaryDirectory() as work:
            narrative, filers, all_chunks = corpus_narrative_chunks(corpus, Path(work))
            print(f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
            learned_figures(narrative, filers, all_chunks, corpus)
        return 0
    if args.gold_only:
        from graphrag_core.intake.local_folder import LocalFolderSource

        gold_figures(RulesBackend.from_rows(LocalFolderSource(corpus).company_tickers()))
        return 0
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs "
        f"(load average {load}); corpus {corpus}"
    )
    with tempfile.TemporaryDirectory() as work:
        t0 = time.perf_counter()
        narrative, filers, all_chunks = corpus_narrative_chunks(corpus, Path(work))
        print(f"corpus intake + chunking: {time.perf_counter() - t0:.1f} s\n")
        rules_figures(narrative, filers, all_chunks, corpus)
        learned_figures(narrative, filers, all_chunks, corpus)
        replies = openai_figures(
            narrative,
            filers,
            all_chunks,
            args.latency_ms,
            [int(x) for x in args.levels.split(",")],
            args.rounds,
        )
        gate_figures(replies, narrative, filers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
