"""The retrieval question sets side by side: dev, held-out and the frozen blind part (issue 24,
item 1). Not a benchmark itself (the Makefile's `bench` target skips files starting with `_`):
bench/retrieval.py prints these figures with `--splits` (dev and held-out) and `--blind`.

Two sets:
- bench/retrieval_questions.json, written by the engine's authors from the chunks; every third
  of the first 50 questions is held out (`split`). Methods are chosen on the dev part only;
  the later paraphrased dev questions (`part: new`) are reported as `dev_new`, and those a third
  author wrote from the writing guide alone (`part: guide`) as `dev_guide` and `held_guide`.
- the spent blind sets (SPENT): frozen blind parts that have each judged a round once and now
  train the learned re-rank (`spent`); never reported as blind again.
- bench/retrieval_questions_blind.json, written by a second author who saw only a writing guide
  (bench/retrieval_blind_writing_guide.md) and the filings' saved text, never the index, the
  code, the other set or the tuning; frozen before any measurement (its `about` says how). Its
  questions name a `filing_id`; a dev question names only a `ticker`.

A question's answering chunks are those of its filing (or its ticker's filings) whose text
holds its `quote` (whitespace folded). For each question: is an answering chunk among the top
8 hits (hit@8); does the passage a hit shows (`retrieval.passages.hit_passage`, what
search_chunks returns) hold the quote, on the answering chunk (the one found, else the first:
"shown"), and both at once ("found and shown").

Only aggregate figures ever leave this module: counts and rates per split. No question, quote,
id or per-question outcome is printed, so measuring the blind part reveals nothing to tune on.
A blind quote that no chunk holds (it crosses a chunk boundary) counts as a miss in every
column and is counted in `unresolved`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "bench" / "retrieval_questions.json"
BLIND = ROOT / "bench" / "retrieval_questions_blind.json"
K = 8
SPLITS = ("dev", "dev_new", "dev_guide", "held_out", "held_guide", "spent", "blind")
# The splits methods may be chosen on (everything else is only measured).
DEV_SPLITS = ("dev", "dev_new", "dev_guide")
# Blind sets already measured once per tree and declared spent: they judge nothing any more,
# so the learned re-rank trains on them beside the dev parts (split `spent`); the next blind
# set, written after they were spent, is what judges it.
SPENT = tuple(
    ROOT / "bench" / f"retrieval_questions_{name}.json"
    for name in ("blind", "blind_fresh", "blind3", "blind4", "blind5")
)
TRAIN_SPLITS = (*DEV_SPLITS, "spent")
_WS = re.compile(r"\s+")


def norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


def load(path: Path, split: str | None = None) -> list[dict]:
    """The questions of a set (`split` overrides theirs: every blind question is `blind`). A
    dev question of the later, paraphrased part (`part: new`) is reported as `dev_new`: the
    first dev part's top 8 is saturated, so the two are shown apart (both are dev)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))["questions"]
    out = []
    for q in data:
        own = q.get("split", "dev")
        if own == "dev" and q.get("part") == "new":
            own = "dev_new"
        elif q.get("part") == "guide":  # a third author's, written from the guide alone
            own = "dev_guide" if own == "dev" else "held_guide"
        out.append({**q, "split": split or own})
    return out


def resolve(questions: Iterable[dict], chunks: pl.DataFrame) -> list[dict]:
    """Each question with `answers`, the chunk ids holding its quote: within its `filing_id`
    when it names one, else within its `ticker`'s filings. `chunks` has chunk_id, filing_id,
    ticker and text."""
    by_filing: dict[str, list[tuple[str, str]]] = {}
    by_ticker: dict[str, list[tuple[str, str]]] = {}
    for cid, fid, ticker, text in chunks.select("chunk_id", "filing_id", "ticker", "text").rows():
        item = (cid, norm(text or ""))
        by_filing.setdefault(fid, []).append(item)
        by_ticker.setdefault(ticker or "", []).append(item)
    out = []
    for q in questions:
        scope = by_filing.get(q["filing_id"], []) if q.get("filing_id") else None
        if scope is None:
            scope = by_ticker.get(q.get("ticker") or "", [])
        quote = norm(q["quote"])
        out.append({**q, "answers": {cid for cid, text in scope if quote and quote in text}})
    return out


def tally(
    questions: list[dict],
    search: Callable[[str], list],
    passage: Callable[[str, str, str | None], str],
) -> dict[str, dict[str, int]]:
    """Counts per split. `search(question)` → hits (with `chunk_id` and `key`), the top K;
    `passage(question, chunk_id, key)` → the text a hit of that chunk shows."""
    out: dict[str, dict[str, int]] = {}
    for q in questions:
        t = out.setdefault(
            q["split"], {"n": 0, "hit": 0, "shown": 0, "found_shown": 0, "unresolved": 0}
        )
        t["n"] += 1
        if not q["answers"]:
            t["unresolved"] += 1
            continue
        hits = search(q["question"])[:K]
        found = [h for h in hits if h.chunk_id in q["answers"]]
        quote = norm(q["quote"])
        if found:
            t["hit"] += 1
            shows = [quote in norm(passage(q["question"], h.chunk_id, h.key)) for h in found]
            t["shown"] += shows[0]
            t["found_shown"] += any(shows)
        else:
            first = sorted(q["answers"])[0]
            t["shown"] += quote in norm(passage(q["question"], first, None))
    return out


def report(counts: dict[str, dict[str, int]], label: str = "") -> list[str]:
    """The table's lines: one per split present, aggregates only."""
    lines = [
        f"   {'split':<9} {'n':>4} {'hit@8':>6} {'shown (answer chunk)':>21} "
        f"{'found and shown':>16} {'unresolved':>11}  {label}".rstrip()
    ]
    for split in SPLITS:
        t = counts.get(split)
        if not t:
            continue
        n = t["n"]
        lines.append(
            f"   {split:<9} {n:>4} {t['hit'] / n:>6.2f} {t['shown'] / n:>21.2f} "
            f"{t['found_shown'] / n:>16.2f} {t['unresolved']:>11}"
        )
    return lines
