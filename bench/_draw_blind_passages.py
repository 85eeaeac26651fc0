"""Draw the passages of the second blind extraction split (issue 22, `blind2`).

Reads the source filings through the project's own intake, parser and chunker (as the
`section_chunks` asset has them), keeps the narrative chunks an extractor reads, and draws about
180 of them, seeded, from companies with no case in the `dev` split:

- up to 80% among chunks with a relation cue, stratified over five cue families (supply,
  customer, competition, ownership, guidance) so that each gets a fair share, and at most
  `--per-company` chunks per company, each pick going to the least-drawn company; the first
  blind split had already used most cue chunks of these filings, so in 2026-12 the pool held 117
  and the cap let 82 of them in (46%);
- the rest a random sample of the other chunks, with the same spread over companies;
- the 8-K items the pipeline does not extract from are drawn too (as the first blind split did),
  except the exhibit list (Item 9.01): most 8-K-only filers have nothing else;
- never a chunk already in `cases.jsonl` or `blind_cases.jsonl` (only their `chunk_id` is read).

    python bench/_draw_blind_passages.py --out /work/fresh [--data-root DIR]

Writes `passages_all.jsonl` (passage id -> the chunk's fields, for assembling the gold cases),
and `batch_A.jsonl`, `batch_B.jsonl`, `batch_C.jsonl` for three annotators with only the fields
the labelling guide names. The draw is split into three parts P1, P2, P3; A reads P1 and the first
20 of P2, B reads P2 and the first 20 of P3, C reads P3 and the first 20 of P1, so 60 chunks are
labelled twice. Each file is shuffled.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import polars as pl

from bench._chunking import chunked_store
from graphrag_core.extraction.batch import narrative_chunks
from graphrag_core.extraction.headings import preceding_headings, spans_of, texts
from graphrag_core.tables.records import FilingRef
from graphrag_core.tables.table_store import TableStore

SEED = 20261207
GOLD = ROOT / "tests" / "fixtures" / "extraction_gold"
CORPUS = Path("/work/shared/corpus")
CORPUS_EXTRA = Path("/work/shared/corpus-extra")
# The sources the issue names: holdout companies and 8-K-only filers of the corpus (by CIK), and
# every filing of the second corpus.
CORPUS_CIKS = {
    "0000200406",  # JNJ
    "0000320187",  # NKE
    "0001341439",  # ORCL
    "0001318605",  # TSLA
    "0000100885",  # UNP
    "0001403161",  # V
    "0000786344",  # GAINSCO
    "0000885245",  # BKE
    "0001641631",  # XAIR
    "0001364742",  # BLK
    "0001084869",  # FLWS
    "0000072333",  # JWN
    "0000880984",  # ACFN
    "0001822523",  # AFCG
    "0001847360",  # BCOW
    "0000060549",
    "0001563855",
    "0001588272",
}
TOTAL = 180
CUE_SHARE = 0.8
PART = 60
OVERLAP = 20
MIN_CHARS = 150  # a heading alone or a page footer is not a passage worth an annotator's time

_SENTENCE = re.compile(r"(?<=[.;!?])\s+(?=[A-Z\u201c\"(•])|\n+")
CUES: dict[str, re.Pattern[str]] = {
    "supplies": re.compile(
        r"\b(?:suppliers?|supply|supplies|supplied|vendors?|manufactur\w*|foundr(?:y|ies)|licens\w*)\b",
        re.I,
    ),
    "customer": re.compile(
        r"\b(?:customers?|distributors?|bottlers?|wholesal\w*|retailers?|lessees?|lease\s+to)\b",
        re.I,
    ),
    "compete": re.compile(r"\b(?:compet\w*|rivals?)\b", re.I),
    "subsidiary": re.compile(r"\b(?:subsidiar\w*|acqui\w*|wholly|owned\s+by)\b", re.I),
}
_GUIDE_WORD = re.compile(r"\b(?:outlook|guidance)\b", re.I)
_EXPECT = re.compile(r"\bexpect\w*", re.I)
_AMOUNT = re.compile(r"[$%]|\bpercent\b", re.I)


def cue_families(text: str) -> list[str]:
    found = [name for name, pattern in CUES.items() if pattern.search(text)]
    if _GUIDE_WORD.search(text) or any(
        _EXPECT.search(s) and _AMOUNT.search(s) for s in _SENTENCE.split(text)
    ):
        found.append("guides")
    return found


def _chunk_ids(path: Path) -> set[str]:
    """Only the `chunk_id` of each line: the blind file's labels are not read."""
    out = set()
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                out.add(json.loads(line)["chunk_id"])
    return out


def _gold_names() -> dict[str, str]:
    """cik -> the filer's name as the gold cases write it (one name per filer, whichever corpus
    the filing comes from)."""
    names: dict[str, str] = {}
    with (GOLD / "cases.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            case = json.loads(line)
            names.setdefault(case["cik"], case["company"])
    return names


def _dev_ciks() -> set[str]:
    ciks = set()
    with (GOLD / "cases.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            case = json.loads(line)
            if case["split"] == "dev":
                ciks.add(case["cik"])
    return ciks


def prepare(corpus: Path, data_root: Path, keep: Callable[[FilingRef], bool]) -> TableStore:
    """Ingest and chunk the chosen filings of `corpus` into `data_root` (cached)."""
    return chunked_store(corpus, data_root, keep)


# The first blind split also drew 8-K items the pipeline does not extract from (5.02, 2.02,
# 5.07, the pre-2004 "Item 9"); without them most 8-K-only filers have no chunk left at all.
OTHER_8K_ITEMS = re.compile(r"^8-K(?:/A)?/Item ")
EXHIBIT_LIST = re.compile(r"^8-K(?:/A)?/Item 9\.01$")


def other_8k_items(chunks: pl.DataFrame) -> pl.DataFrame:
    return chunks.filter(
        pl.col("section").str.contains(OTHER_8K_ITEMS.pattern)
        & ~pl.col("section").str.contains(EXHIBIT_LIST.pattern)
        & (pl.col("kind") != "table")
    )


def candidates(data_root: Path) -> list[dict]:
    dev = _dev_ciks()
    taken = _chunk_ids(GOLD / "cases.jsonl") | _chunk_ids(GOLD / "blind_cases.jsonl")
    names = _gold_names()
    out: list[dict] = []
    for corpus, name, keep in (
        (CORPUS, "corpus", lambda ref: ref.cik in CORPUS_CIKS),
        (CORPUS_EXTRA, "corpus-extra", lambda ref: True),
    ):
        store = prepare(corpus, data_root / name, keep)
        filings = store.scan("raw_filings").collect()
        chunks = store.scan("section_chunks").collect()
        before = preceding_headings(chunks)
        kept = pl.concat([narrative_chunks(chunks), other_8k_items(chunks)]).unique("chunk_id")
        kept = kept.join(
            filings.select(
                "filing_id", "cik", "ticker", "company", "form", "fiscal_year", "source"
            ),
            on="filing_id",
        )
        for row in kept.sort("filing_id", "section", "ordinal").iter_rows(named=True):
            if row["cik"] in dev or row["chunk_id"] in taken:
                continue
            if len(row["text"].strip()) < MIN_CHARS:
                continue
            out.append(
                chunk_record(row, names, before)
                | {
                    "corpus": name,
                    "group": _group(name, row["cik"], row["form"]),
                    "cues": cue_families(row["text"]),
                }
            )
    return out


def chunk_record(row: dict, names: dict[str, str], before: dict[str, str | None]) -> dict:
    """A drawn chunk's fields, as a gold case holds them (the filer named as the gold set does)."""
    spans = spans_of(row["headings"])
    return {
        "chunk_id": row["chunk_id"],
        "filing_id": row["filing_id"],
        "company": names.get(row["cik"], row["company"]),
        "cik": row["cik"],
        "ticker": row["ticker"],
        "form": row["form"],
        "fiscal_year": row["fiscal_year"],
        "source": row["source"],
        "section": row["section"],
        "kind": row["kind"],
        "scale_header": row["scale_header"],
        "headings": [list(s) for s in spans],
        "heading_texts": [h[2] for h in texts(row["text"], spans)],
        "preceding_heading": before.get(row["chunk_id"]),
        "text": row["text"],
    }


HOLDOUT_CIKS = {
    "0000200406",
    "0000320187",
    "0001341439",
    "0001318605",
    "0000100885",
    "0001403161",
    "0000786344",
    "0000885245",
    "0001641631",
}


def _group(corpus: str, cik: str, form: str) -> str:
    if corpus == "corpus-extra":
        return "extra"
    return "holdout-company" if cik in HOLDOUT_CIKS else "goldless-8k"


def draw(pool: list[dict], rng: random.Random, total: int, per_company: int) -> list[dict]:
    """Stratified by cue family, then random; each pick goes to the least-drawn company."""
    rng.shuffle(pool)
    chosen: list[dict] = []
    ids: set[str] = set()
    per: Counter[str] = Counter()

    def pick(among: list[dict]) -> bool:
        best = None
        for c in among:  # already shuffled: ties go to the earlier one
            if c["chunk_id"] in ids or per[c["cik"]] >= per_company:
                continue
            if best is None or per[c["cik"]] < per[best["cik"]]:
                best = c
        if best is None:
            return False
        chosen.append(best)
        ids.add(best["chunk_id"])
        per[best["cik"]] += 1
        return True

    families = ["supplies", "customer", "compete", "subsidiary", "guides"]
    by_family = {f: [c for c in pool if f in c["cues"]] for f in families}
    n_cue = round(total * CUE_SHARE)
    live = list(families)
    while len(chosen) < n_cue and live:
        for family in list(live):
            if len(chosen) >= n_cue:
                break
            if not pick(by_family[family]):
                live.remove(family)
    rest = [c for c in pool if not c["cues"]]
    while len(chosen) < total and (pick(rest) or pick(pool)):
        pass
    return chosen


ANNOTATOR_FIELDS = ("passage_id", "company", "ticker", "form", "section")


def annotator_line(p: dict) -> dict:
    out = {k: p[k] for k in ANNOTATOR_FIELDS}
    out["heading_above"] = p["preceding_heading"]
    out["headings"] = p["heading_texts"]
    out["text"] = p["text"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--data-root", type=Path, default=ROOT / "bench" / "out" / "draw_blind")
    parser.add_argument("--per-company", type=int, default=15)
    args = parser.parse_args(argv)
    pool = candidates(args.data_root)
    rng = random.Random(SEED)
    chosen = draw(pool, rng, TOTAL, args.per_company)
    rng.shuffle(chosen)
    for n, p in enumerate(chosen, 1):
        p["passage_id"] = f"Q{n:03d}"
        p["part"] = f"P{(n - 1) // PART + 1}"
    parts = [chosen[i : i + PART] for i in range(0, len(chosen), PART)]
    batches = {
        "A": parts[0] + parts[1][:OVERLAP],
        "B": parts[1] + parts[2][:OVERLAP],
        "C": parts[2] + parts[0][:OVERLAP],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "passages_all.jsonl").open("w", encoding="utf-8") as fh:
        for p in chosen:
            p["annotators"] = [a for a, b in batches.items() if p in b]
            fh.write(json.dumps(p, ensure_ascii=False) + "\n")
    for name, batch in batches.items():
        batch = list(batch)
        rng.shuffle(batch)
        with (args.out / f"batch_{name}.jsonl").open("w", encoding="utf-8") as fh:
            for p in batch:
                fh.write(json.dumps(annotator_line(p), ensure_ascii=False) + "\n")
    fam = Counter(f for p in chosen for f in p["cues"])
    print(f"pool {len(pool)} chunks ({sum(bool(c['cues']) for c in pool)} with a cue)")
    print(
        f"drawn {len(chosen)}: with a cue {sum(bool(p['cues']) for p in chosen)}; "
        f"by family {dict(fam)}"
    )
    print(
        f"companies {len({p['cik'] for p in chosen})}: "
        f"{dict(Counter(p['company'] for p in chosen))}"
    )
    print(f"groups {dict(Counter(p['group'] for p in chosen))}")
    print(f"sections {dict(Counter(p['section'] for p in chosen))}")
    print(f"batches { ({k: len(v) for k, v in batches.items()}) }")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
