#!/usr/bin/env python
"""Assemble `tests/fixtures/extraction_gold/train_cases.jsonl`, the relation classifier's
training chunks besides the gold set's `dev` split (issue 22), from two labelled sources:

- `--synth FILE`: invented-name, filing-style sentences with labels, written from
  `LABELLING_GUIDE.md` alone (`{"id", "company", "form", "section", "text", "relations"}`);
- `--draw DIR`: chunks of the dev companies' corpus filings drawn by seed from those no gold file
  holds (`passages_all*.jsonl`, with the chunk's fields and a `passage_id`), labelled by
  annotators who saw only the guide (`labels_*.jsonl`: `{"passage_id", "relations"}`).

A relation whose evidence is not a verbatim quote of its text is dropped (and counted), "@" is
the filer, a chunk any gold file holds is dropped (the loader would refuse it), and the output is
sorted by case id, so the same inputs give the same file byte for byte.

    .venv/bin/python bench/_assemble_train_cases.py --synth /work/synth/train_sentences.jsonl \
        --draw /work/train_draw
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "tests" / "fixtures" / "extraction_gold"
FIELDS = ("subject", "relation", "object", "value", "low", "high", "unit", "period", "evidence")


def _gold_chunks() -> tuple[set[str], set[str]]:
    """Chunk ids and folded texts of every gold file (only these two fields are read)."""
    ids, texts = set(), set()
    for name in ("cases.jsonl", "blind_cases.jsonl", "blind2_cases.jsonl"):
        path = GOLD / name
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                ids.add(row["chunk_id"])
                texts.add(" ".join(row["text"].split()))
    return ids, texts


def _relations(raw: list[dict], text: str, company: str, dropped: list[str]) -> list[dict]:
    out = []
    for r in raw:
        if not isinstance(r, dict) or not isinstance(r.get("evidence"), str):
            dropped.append("malformed")
            continue
        if r["evidence"] not in text:
            dropped.append("evidence not in text")
            continue
        rel = {f: r.get(f) for f in FIELDS}
        for side in ("subject", "object"):
            if str(rel[side]).strip() == "@":
                rel[side] = company
        rel["optional"] = bool(r.get("optional"))
        rel["aliases"] = r.get("aliases") or {}
        out.append(rel)
    return out


def assemble(synth: Path | None, draw: Path | None) -> tuple[list[dict], dict[str, int]]:
    gold_ids, gold_texts = _gold_chunks()
    cases: list[dict] = []
    dropped: list[str] = []
    if synth is not None:
        for line in synth.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            text = row["text"]
            digest = hashlib.sha256(text.encode()).hexdigest()[:16]
            cases.append(
                {
                    "case_id": f"synth-{row['id']}",
                    "split": "train",
                    "source": "synth",
                    "company": row["company"],
                    "cik": None,
                    "ticker": None,
                    "chunk_id": f"synth:{digest}",
                    "section": row.get("section") or "",
                    "text": text,
                    "relations": _relations(
                        row.get("relations") or [], text, row["company"], dropped
                    ),
                }
            )
    if draw is not None:
        passages = {}
        for path in sorted(draw.glob("passages_all*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    p = json.loads(line)
                    passages[p["passage_id"]] = p
        for path in sorted(draw.glob("labels_*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                label = json.loads(line)
                p = passages.get(label.get("passage_id"))
                if p is None:
                    dropped.append("unknown passage")
                    continue
                cases.append(
                    {
                        "case_id": f"draw-{p['passage_id']}",
                        "split": "train",
                        "source": "draw",
                        "company": p["company"],
                        "cik": p.get("cik"),
                        "ticker": p.get("ticker"),
                        "chunk_id": p["chunk_id"],
                        "section": p.get("section") or "",
                        "text": p["text"],
                        "relations": _relations(
                            label.get("relations") or [], p["text"], p["company"], dropped
                        ),
                    }
                )
    kept, seen = [], set()
    for c in sorted(cases, key=lambda c: c["case_id"]):
        if c["chunk_id"] in gold_ids or " ".join(c["text"].split()) in gold_texts:
            dropped.append("chunk in a gold file")
            continue
        if c["chunk_id"] in seen:
            dropped.append("chunk labelled twice (first kept)")
            continue
        seen.add(c["chunk_id"])
        kept.append(c)
    counts: dict[str, int] = {}
    for why in dropped:
        counts[why] = counts.get(why, 0) + 1
    return kept, counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synth", type=Path)
    parser.add_argument("--draw", type=Path)
    parser.add_argument("--out", type=Path, default=GOLD / "train_cases.jsonl")
    args = parser.parse_args(argv)
    cases, dropped = assemble(args.synth, args.draw)
    args.out.write_text(
        "".join(json.dumps(c, ensure_ascii=False, sort_keys=True) + "\n" for c in cases),
        encoding="utf-8",
    )
    by_source: dict[str, int] = {}
    for c in cases:
        by_source[c["source"]] = by_source.get(c["source"], 0) + 1
    relations = sum(len(c["relations"]) for c in cases)
    print(f"{len(cases)} cases {by_source}, {relations} relations -> {args.out}; dropped {dropped}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
