"""Does a hit's passage show the answer? On the question set's answering chunks (the hit a search
should return), the passage shown before issue 24 item 2 (the chunk's index window nearest the
question's vector: the window a search ranked the chunk by) beside the passage chosen now
(`retrieval.passages`: the whole-sentence span, or a table's rows). Reports, per split, how often
the question's `quote` (a verbatim piece of the answer) is inside what is shown, and how often
the shown text starts or ends mid-sentence.

    python bench/passages.py [--data-root DIR] [--corpus DIR] [--small]

Only the filings of the questions' companies are chunked (cached in the data root, shared with
bench/retrieval.py); the held-out questions were never looked at while choosing the method.
`--small`: Apple's questions only, under a temporary folder (for the test suite).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np
import polars as pl

from bench import _questions
from bench._chunking import chunked_store
from graphrag_core.retrieval.passages import hit_passage
from graphrag_core.retrieval.search import shared_embedder
from graphrag_core.retrieval.sections import heading
from graphrag_core.settings import RetrievalSettings, default_corpus
from graphrag_core.tables.table_store import TableStore
from graphrag_core.text.sentences import sentence_spans

QUESTIONS = ROOT / "bench" / "retrieval_questions.json"
SMALL_TICKER = "AAPL"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def prepare(corpus: Path, data_root: Path, tickers: set[str]) -> TableStore:
    return chunked_store(corpus, data_root, lambda ref: ref.ticker in tickers)


def _whole(text: str, start: int, end: int, bounds: tuple[set[int], set[int]]) -> bool:
    return start in bounds[0] and end in bounds[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=default_corpus())
    parser.add_argument("--data-root", type=Path, default=ROOT / "bench" / "out" / "retrieval")
    parser.add_argument("--small", action="store_true", help="one company's questions (seconds)")
    args = parser.parse_args(argv)
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]
    if args.small:
        from bench._small import corpus, work_folder

        with work_folder("passages") as tmp:
            asked = [q for q in questions if q["ticker"] == SMALL_TICKER]
            return measure(corpus(args.corpus), tmp / "data", asked)
    if args.corpus is None:
        raise SystemExit("no corpus: pass --corpus or set FILINGS_CORPUS")
    return measure(args.corpus, args.data_root, questions)


def measure(corpus: Path, data_root: Path, questions: list[dict]) -> int:
    settings = RetrievalSettings()
    if settings.model_cache is None:
        settings = settings.model_copy(update={"model_cache": data_root / "models"})
    store = prepare(corpus, data_root, {q["ticker"] for q in questions})
    chunks = (
        store.scan("section_chunks")
        .collect()
        .join(
            store.scan("raw_filings").collect().select("filing_id", "ticker", "company", "form"),
            on="filing_id",
        )
    )
    embedder = shared_embedder(settings)
    tally: dict[str, dict[str, int]] = {}
    # within the question's filing when it names one, whitespace folded (bench/_questions.py)
    scope = chunks.select("chunk_id", "filing_id", "ticker", "text")
    for q in _questions.resolve(questions, scope):
        if not q["answers"]:
            raise SystemExit(f"question {q['id']}: no chunk of {q['ticker']} contains its quote")
        row = chunks.filter(pl.col("chunk_id") == sorted(q["answers"])[0]).row(0, named=True)
        text = row["text"]
        head = heading(row["company"], row["form"], row["section"], row["kind"])
        count = getattr(
            embedder, "count_tokens", None
        )  # as chunk_index reserves the heading's room
        wins = (
            embedder.windows(text, count(head) + 1 if callable(count) else 16)
            if row["kind"] != "table"
            else []
        )
        if wins:  # the window a vector search ranks the chunk by
            vecs = embedder.embed(
                [q["question"], *(f"{head}\n{text[w.start : w.end]}" for w in wins)]
            )
            best = wins[int(np.argmax(vecs[1:] @ vecs[0]))]
            old = (best.start, best.end)
        else:  # a table was one index row: the whole table
            old = (0, len(text))
        shown = hit_passage(
            text,
            row["kind"],
            q["question"],
            settings.passage_chars,
            settings.passage_table_rows,
            row["scale_header"],
        )
        spans = sentence_spans(text, split_lines=True)
        bounds = ({a for a, _ in spans}, {b for _, b in spans})
        t = tally.setdefault(
            q["split"],
            {
                "n": 0,
                "old_shows": 0,
                "new_shows": 0,
                "old_whole": 0,
                "new_whole": 0,
                "old_chars": 0,
                "new_chars": 0,
            },
        )
        quote = _norm(q["quote"])
        t["n"] += 1
        t["old_shows"] += quote in _norm(text[old[0] : old[1]])
        t["new_shows"] += quote in _norm(shown.text)
        t["old_whole"] += _whole(text, *old, bounds)
        t["new_whole"] += row["kind"] == "table" or _whole(text, shown.start, shown.end, bounds)
        t["old_chars"] += old[1] - old[0]
        t["new_chars"] += len(shown.text)
    print(
        f"{'split':<9} {'n':>3} {'answer shown: window':>21} {'passage':>8} "
        f"{'whole sentences: window':>24} {'passage':>8} {'mean chars: window':>19} {'passage':>8}"
    )
    for split, t in tally.items():
        n = t["n"]
        print(
            f"{split:<9} {n:>3} {t['old_shows'] / n:>21.2f} {t['new_shows'] / n:>8.2f} "
            f"{t['old_whole'] / n:>24.2f} {t['new_whole'] / n:>8.2f} "
            f"{t['old_chars'] / n:>19.0f} {t['new_chars'] / n:>8.0f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
