"""The retrieval bench's blind measurement (issue 24, item 1) prints aggregates only: a run over
a question file in the blind set's format shows its split's counts and rates, and no question,
quote, id or answer of it appears anywhere in what the run prints. The real blind file is never
read here: the file measured is made from the dev set's Apple questions."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from bench import _questions

ROOT = Path(__file__).resolve().parent.parent


def test_questions_resolve_within_their_filing_or_their_ticker():
    chunks = pl.DataFrame(
        {
            "chunk_id": ["a1", "a2", "b1"],
            "filing_id": ["F-A", "F-A2", "F-B"],
            "ticker": ["AAA", "AAA", "BBB"],
            "text": ["Net sales\n rose  by 5%.", "Net sales rose by 5%.", "Net sales rose by 5%."],
        }
    )
    asked = [
        {"id": "1", "split": "blind", "filing_id": "F-A", "quote": "Net sales rose by 5%"},
        {"id": "2", "split": "dev", "ticker": "AAA", "quote": "sales rose"},
        {"id": "3", "split": "blind", "filing_id": "F-GONE", "ticker": "BBB", "quote": "sales"},
        {"id": "4", "split": "blind", "filing_id": "F-B", "quote": ""},
        {"id": "5", "split": "blind", "filing_id": "F-B", "quote": "'; DROP TABLE x; --"},
    ]
    answers = [q["answers"] for q in _questions.resolve(asked, chunks)]
    # whitespace folded; a filing id scopes to that filing only (not the ticker's other one)
    assert answers == [{"a1"}, {"a1", "a2"}, set(), set(), set()]


def test_the_report_holds_figures_only():
    counts = {
        "dev": {"n": 4, "hit": 3, "shown": 2, "found_shown": 2, "unresolved": 0},
        "blind": {"n": 5, "hit": 4, "shown": 4, "found_shown": 3, "unresolved": 1},
    }
    lines = _questions.report(counts, "label")
    assert re.match(r"^   dev\s+4\s+0\.75\s+0\.50\s+0\.50\s+0$", lines[1])
    assert re.match(r"^   blind\s+5\s+0\.80\s+0\.80\s+0\.60\s+1$", lines[2])
    assert len(lines) == 3  # held_out absent: no line for it


@pytest.mark.corpus
def test_a_blind_run_prints_no_question(corpus_dir: Path, tmp_path: Path) -> None:
    dev = json.loads((ROOT / "bench" / "retrieval_questions.json").read_text(encoding="utf-8"))
    apple = [q for q in dev["questions"] if q["ticker"] == "AAPL"]
    assert apple
    blind = [
        {
            "id": f"secret-id-{i}",
            "ticker": "AAPL",
            "question": q["question"],
            "quote": q["quote"],
            "answer": f"secret answer number {i}",
        }
        for i, q in enumerate(apple)
    ]
    # one whose filing is not in the corpus: unresolved, counted, never named
    blind.append(
        {
            "id": "secret-id-gone",
            "filing_id": "0000000000-00-000000",
            "ticker": "AAPL",
            "question": "What did the unknown filing say about widgets?",
            "quote": "widgets were sold",
            "answer": "none",
        }
    )
    path = tmp_path / "blind.json"
    path.write_text(json.dumps({"about": "test", "questions": blind}), encoding="utf-8")
    env = {
        **os.environ,
        "TMPDIR": str(tmp_path),
        "FILINGS_CORPUS": str(corpus_dir),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "retrieval.py"), "--small", "--blind"]
        + ["--blind-file", str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    printed = out.stdout + out.stderr
    n = len(blind)
    assert re.search(
        rf"^   blind\s+{n}\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+1$", out.stdout, re.MULTILINE
    ), out.stdout[-2000:]
    assert re.search(r"^   dev\s+\d+\s+[\d.]+", out.stdout, re.MULTILINE)
    for q in blind:
        for field in ("id", "question", "quote", "answer"):
            assert q[field] not in printed, field
    assert "secret" not in printed


def test_each_authors_part_is_reported_apart(tmp_path: Path) -> None:
    rows = [
        {"id": "1", "split": "dev"},
        {"id": "2", "split": "dev", "part": "new"},
        {"id": "3", "split": "dev", "part": "guide"},
        {"id": "4", "split": "held_out", "part": "guide"},
        {"id": "5", "split": "held_out"},
        {"id": "6"},
    ]
    path = tmp_path / "q.json"
    path.write_text(json.dumps({"about": "test", "questions": rows}), encoding="utf-8")
    splits = [q["split"] for q in _questions.load(path)]
    assert splits == ["dev", "dev_new", "dev_guide", "held_guide", "held_out", "dev"]
    # a blind file's questions are blind whatever part they claim
    assert {q["split"] for q in _questions.load(path, split="blind")} == {"blind"}
    # only the dev parts may choose a method; the held-out parts are only measured
    assert set(_questions.DEV_SPLITS) == {"dev", "dev_new", "dev_guide"}


def test_the_dev_sets_guide_part_is_a_third_held_out() -> None:
    dev = json.loads((ROOT / "bench" / "retrieval_questions.json").read_text(encoding="utf-8"))
    guide = [q for q in dev["questions"] if q.get("part") == "guide"]
    assert len(guide) >= 80 and all(q.get("filing_id") and q["quote"] for q in guide)
    held = sum(q["split"] == "held_out" for q in guide)
    assert abs(held - len(guide) / 3) <= 1
