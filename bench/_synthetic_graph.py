"""Generate the graph stage's inputs at scale for bench/graph.py (not a benchmark itself: the
Makefile's `bench` target skips files starting with `_`).

Shape (defaults): 5,000 SEC companies in a ticker list; 2,500 of them file two 10-Ks each
(5,000 filings). Each filer has about 340 relations — competitors among the SEC companies,
suppliers among them and among 20,000 organizations that file nothing with the SEC (legal-form
names), customers — and about 20 risk categories; each 10-K states about two thirds of them, in
the spellings filings use (SEC title, short name, upper case, "we"), so the two 10-Ks of a
company overlap and merge. Each 10-K also reports 14 metrics for two fiscal years, the prior
one restated now and then. About 1% of the names resolve to nothing (the review queue). The
result is about 1,000,000 edges and 1,500,000 citations, written as real table-store
partitions (raw_filings, validated_triples, metric_observations). Deterministic (seeded).

    python bench/_synthetic_graph.py [--data-root .bench/graph] [--companies 5000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._synthetic_snapshot import WORDS_A, WORDS_B
from graphrag_core.tables.schemas import FILINGS, METRIC_OBSERVATIONS, VALIDATED_TRIPLES
from graphrag_core.tables.table_store import TableStore

WORDS_C = (
    "Precision",
    "Electronics",
    "Industrial",
    "Materials",
    "Components",
    "Machinery",
    "Photonics",
    "Chemical",
    "Logistics",
    "Semiconductor",
)
RISK_PHRASES = (
    "export controls",
    "tariffs and trade restrictions",
    "foreign exchange rates",
    "interest rates",
    "inflation",
    "cybersecurity incidents",
    "data privacy regulation",
    "climate change",
    "natural disasters",
    "public health crises",
    "geopolitical tensions",
    "supply chain",
    "customer concentration",
    "competition",
    "litigation",
    "government regulation",
    "intellectual property",
    "tax law changes",
    "key personnel",
    "indebtedness",
    "We depend on a limited number of third parties to manufacture our products",
    "Adverse economic conditions may harm our business",
    "Failure to retain key employees could harm our business",
    "Our stock price may be volatile",
)
METRICS = (
    "revenue",
    "cost_of_revenue",
    "gross_profit",
    "operating_income",
    "net_income",
    "eps_diluted",
    "total_assets",
    "total_liabilities",
    "stockholders_equity",
    "cash_and_equivalents",
    "operating_cash_flow",
    "capex",
    "shares_outstanding",
    "total_debt",
)
RELATIONS = (("COMPETES_WITH", 160), ("SUPPLIES", 140), ("CUSTOMER_OF", 40))
SHARE_STATED = 0.65  # of a company's relations, what one 10-K states


def _h(*parts: object) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:24]


def company_names(n: int) -> list[str]:
    pairs = [f"{a} {b}" for b in WORDS_B for a in WORDS_A]
    pairs += [f"{a} {b} {c}" for c in WORDS_C for b in WORDS_B for a in WORDS_A]
    return pairs[:n]


def organization_names(n: int, skip: int) -> list[str]:
    names = [f"{a} {c} {b}" for c in WORDS_C for b in WORDS_B for a in WORDS_A]
    return [f"{name} Co., Ltd." for name in names[skip : skip + n]]


def _ciks(n: int) -> list[str]:
    return [f"{2_000_000 + i:010d}" for i in range(n)]


def _tickers(n: int) -> list[str]:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return ["".join(letters[(i // 26**k) % 26] for k in (3, 2, 1, 0)) for i in range(n)]


def ticker_rows(n_companies: int) -> list[dict]:
    """SEC's ticker list of the synthetic world (company_tickers.json rows)."""
    return [
        {"cik": c, "ticker": t, "title": f"{name.upper()} INC"}
        for c, t, name in zip(
            _ciks(n_companies), _tickers(n_companies), company_names(n_companies), strict=True
        )
    ]


def generate(data_root: Path, n_companies: int, seed: int = 11) -> dict:
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    names = company_names(n_companies)
    ciks = _ciks(n_companies)
    tickers = _tickers(n_companies)
    orgs = organization_names(4 * n_companies, skip=n_companies)
    n_filers = n_companies // 2
    filer_idx = rng.choice(n_companies, n_filers, replace=False)

    # A party named in a filing: an SEC company in one of the spellings filings use, an
    # organization (legal-form name), or, now and then, a name nothing resolves.
    def spell(kind: int, i: int, variant: int) -> str:
        if kind == 0:
            base = names[i]
            return (f"{base}, Inc.", base, f"{base.upper()} CORP")[variant % 3]
        if kind == 1:
            return orgs[i]
        return f"{names[i % len(names)].split()[0]} Zyx{i % 997}"

    filings, triples, observations = [], [], []
    for n, fi in enumerate(filer_idx):
        cik, filer_name = ciks[fi], f"{names[fi]}, Inc."
        relations = []
        for relation, count in RELATIONS:
            kinds = rng.choice(3, count, p=[0.55, 0.44, 0.01])
            targets = np.where(
                kinds == 0, rng.integers(0, n_companies, count), rng.integers(0, len(orgs), count)
            )
            for kind, target in zip(kinds, targets, strict=True):
                if kind == 0 and target == fi:
                    continue
                relations.append((relation, int(kind), int(target)))
        risks = rng.choice(len(RISK_PHRASES), 20, replace=False)
        for year in (2024, 2025):
            fid = f"{cik}-{year % 100:02d}-{n + 1:06d}"
            filed = dt.date(year, 2, 20)
            filings.append(
                {
                    "filing_id": fid,
                    "accession": fid,
                    "cik": cik,
                    "ticker": tickers[fi],
                    "company": filer_name,
                    "form": "10-K",
                    "period_end": dt.date(year - 1, 12, 31),
                    "fiscal_year": year - 1,
                    "fiscal_period": "FY",
                    "fiscal_year_end": "--12-31",
                    "filed_date": filed,
                    "source": "synthetic",
                    "sha256": _h(fid),
                    "bytes": 1_000_000,
                    "documents": 1,
                    "is_inline_xbrl": True,
                    "meta_sources": "{}",
                    "warnings": [],
                }
            )
            stated = rng.random(len(relations)) < SHARE_STATED
            for j, (relation, kind, target) in enumerate(relations):
                if not stated[j]:
                    continue
                other = spell(kind, target, int(rng.integers(0, 3)))
                me = "we" if rng.random() < 0.2 else filer_name
                subject, obj = (
                    (other, me) if relation in ("SUPPLIES", "CUSTOMER_OF") else (me, other)
                )
                quote = f"{subject} {relation.lower().replace('_', ' ')} {obj} ({j})."
                chunk = int(rng.integers(0, 40))
                evidence = [
                    {
                        "chunk_id": f"{fid}:{chunk:04d}",
                        "quote": quote,
                        "char_start": chunk * 4000 + j,
                        "char_end": chunk * 4000 + j + len(quote),
                    }
                ]
                if rng.random() < 0.3:  # stated again in an overlapping chunk
                    evidence.append({**evidence[0], "chunk_id": f"{fid}:{chunk + 1:04d}"})
                triples.append(_triple(fid, subject, relation, obj, evidence))
            for r in risks:
                phrase = RISK_PHRASES[r]
                quote = f"{phrase.capitalize()} could adversely affect us."
                triples.append(
                    _triple(
                        fid,
                        filer_name,
                        "EXPOSED_TO_RISK",
                        phrase,
                        [
                            {
                                "chunk_id": f"{fid}:0099",
                                "quote": quote,
                                "char_start": 400_000 + int(r),
                                "char_end": 400_000 + int(r) + len(quote),
                            }
                        ],
                    )
                )
            for fy in (year - 1, year - 2):
                for m, metric in enumerate(METRICS):
                    value = float((fi + 1) * 1e6 * (m + 1) * (1 + 0.1 * (fy - 2022)))
                    if fy == year - 2 and rng.random() < 0.03:
                        value *= 1.02  # a restatement of the prior year
                    start, end = dt.date(fy, 1, 1), dt.date(fy, 12, 31)
                    instant = metric in (
                        "total_assets",
                        "total_liabilities",
                        "stockholders_equity",
                        "cash_and_equivalents",
                        "shares_outstanding",
                        "total_debt",
                    )
                    observations.append(
                        {
                            "observation_id": _h(fid, metric, fy),
                            "cik": cik,
                            "metric": metric,
                            "value": value,
                            "unit": "shares" if metric == "shares_outstanding" else "USD",
                            "fiscal_label": f"FY{fy}",
                            "fiscal_year": fy,
                            "fiscal_period": "FY",
                            "period_type": "instant" if instant else "duration",
                            "calendar_start": end if instant else start,
                            "calendar_end": end,
                            "filing_id": fid,
                            "form": "10-K",
                            "filed_date": filed,
                            "fact_id": _h("fact", fid, metric, fy),
                            "fact_ids": [],
                            "concept": f"us-gaap:{metric}",
                            "chunk_id": f"{fid}:0050",
                            "superseded_by": None,
                            "restated": False,
                        }
                    )
    t1 = time.perf_counter()
    frames = {
        "raw_filings": pl.DataFrame(filings, schema=FILINGS),
        "validated_triples": pl.DataFrame(triples, schema=VALIDATED_TRIPLES),
        "metric_observations": pl.DataFrame(observations, schema=METRIC_OBSERVATIONS),
    }
    store = TableStore(data_root)
    for table, frame in frames.items():
        for (fid,), part in frame.partition_by("filing_id", as_dict=True).items():
            store.write(table, part, str(fid))
    t2 = time.perf_counter()
    return {
        "companies": n_companies,
        "filers": n_filers,
        "filings": len(filings),
        "triples": len(triples),
        "observations": len(observations),
        "generate_s": round(t1 - t0, 1),
        "write_s": round(t2 - t1, 1),
    }


def _triple(fid: str, subject: str, relation: str, obj: str, evidence: list[dict]) -> dict:
    return {
        "triple_id": _h(fid, subject, relation, obj),
        "filing_id": fid,
        "status": "accepted",
        "reason": None,
        "detail": None,
        "adjustment": None,
        "subject": subject,
        "relation": relation,
        "object": obj,
        "proposed_relation": relation,
        "value": None,
        "unit": None,
        "period": None,
        "value_conflict": False,
        "support": len(evidence),
        "evidence": evidence,
        "extraction_ids": [],
        "backend": "synthetic",
        "model": "synthetic",
        "prompt_version": "synthetic",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-root", type=Path, default=ROOT / ".bench" / "graph")
    parser.add_argument("--companies", type=int, default=5_000)
    args = parser.parse_args(argv)
    info = generate(args.data_root, args.companies)
    print(info)
    return 0


if __name__ == "__main__":
    sys.exit(main())
