"""Draw the passages annotated as training data of the learned relation classifier (issue 22).

Reads the dev companies' corpus filings through the project's own intake, parser and chunker,
keeps the narrative chunks an extractor reads that carry a company-relation cue (supply,
customer, competition, ownership; `_draw_blind_passages.cue_families`), never a chunk of any
gold or blind file, and draws them stratified by cue family, each pick going to the least-drawn
company. Two rounds were drawn on 2026-12-07: 180 chunks (seed 20261208, at most 9 a company,
ids T001-T180, three annotators A-C of 60) and 240 more (seed 20261209, at most 12 a company,
none of the first round, ids U001-U240, annotators D-G).

    python bench/_draw_train_passages.py --out /work/train_draw --round 1
    python bench/_draw_train_passages.py --out /work/train_draw --round 2

Writes `passages_all.jsonl` (round 2: `passages_all2.jsonl`), the chunk's fields by passage id,
and one `batch_X.jsonl` per annotator with only the fields the labelling guide names;
`_assemble_train_cases.py` turns the labels into `train_cases.jsonl`.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import _draw_blind_passages as blind
from graphrag_core.extraction.batch import narrative_chunks
from graphrag_core.extraction.headings import preceding_headings


class Round(NamedTuple):
    seed: int
    total: int
    per_company: int
    prefix: str
    file: str
    annotators: str


ROUNDS = {
    1: Round(20261208, 180, 9, "T", "passages_all.jsonl", "ABC"),
    2: Round(20261209, 240, 12, "U", "passages_all2.jsonl", "DEFG"),
}
PER_ANNOTATOR = 60
GOLD_FILES = ("cases.jsonl", "blind_cases.jsonl", "blind2_cases.jsonl")


def pool(data_root: Path) -> list[dict]:
    """Every unlabelled cue chunk of the dev companies' corpus filings."""
    dev = blind._dev_ciks()
    taken: set[str] = set()
    for name in GOLD_FILES:
        taken |= blind._chunk_ids(blind.GOLD / name)
    names = blind._gold_names()
    store = blind.prepare(blind.CORPUS, data_root, lambda ref: ref.cik in dev)
    filings = store.scan("raw_filings").collect()
    chunks = store.scan("section_chunks").collect()
    before = preceding_headings(chunks)
    kept = narrative_chunks(chunks).join(
        filings.select("filing_id", "cik", "ticker", "company", "form", "fiscal_year", "source"),
        on="filing_id",
    )
    out = []
    for row in kept.sort("filing_id", "section", "ordinal").iter_rows(named=True):
        if row["chunk_id"] in taken or len(row["text"].strip()) < blind.MIN_CHARS:
            continue
        cues = [c for c in blind.cue_families(row["text"]) if c != "guides"]
        if not cues:
            continue
        out.append(blind.chunk_record(row, names, before) | {"cues": cues})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--round", type=int, choices=sorted(ROUNDS), required=True)
    parser.add_argument("--data-root", type=Path, default=ROOT / "bench" / "out" / "draw_train")
    args = parser.parse_args(argv)
    spec = ROUNDS[args.round]
    candidates = pool(args.data_root)
    if args.round == 2:  # never a chunk of the first round
        with (args.out / ROUNDS[1].file).open(encoding="utf-8") as fh:
            first = {json.loads(line)["chunk_id"] for line in fh if line.strip()}
        candidates = [c for c in candidates if c["chunk_id"] not in first]
    blind.CUE_SHARE = 1.0  # every pick among cue chunks
    rng = random.Random(spec.seed)
    chosen = blind.draw(candidates, rng, spec.total, spec.per_company)
    rng.shuffle(chosen)
    for n, p in enumerate(chosen, 1):
        p["passage_id"] = f"{spec.prefix}{n:03d}"
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / spec.file).open("w", encoding="utf-8") as fh:
        for p in chosen:
            fh.write(json.dumps(p, ensure_ascii=False) + "\n")
    for i, name in enumerate(spec.annotators):
        part = chosen[i * PER_ANNOTATOR : (i + 1) * PER_ANNOTATOR]
        with (args.out / f"batch_{name}.jsonl").open("w", encoding="utf-8") as fh:
            for p in part:
                fh.write(json.dumps(blind.annotator_line(p), ensure_ascii=False) + "\n")
    companies = len({p["cik"] for p in chosen})
    print(f"{len(candidates)} candidates, {len(chosen)} drawn over {companies} companies")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
