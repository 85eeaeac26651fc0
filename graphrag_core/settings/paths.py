"""Where the checkout and its shared material lie, and the watchlist default."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
GOLD_DIR = PROJECT_ROOT / "tests" / "fixtures" / "extraction_gold"
DEFAULT_WATCHLIST = ("AAPL", "MSFT", "NVDA", "GOOGL", "AMZN", "META", "TSLA", "JPM", "WMT", "KO")


def default_corpus() -> Path | None:
    """`../shared/corpus` beside the checkout when it exists (the shared corpus of this project)."""
    for candidate in (PROJECT_ROOT.parent / "shared/corpus", Path.cwd().parent / "shared/corpus"):
        if (candidate / "manifest.json").exists() or (candidate / "filings").is_dir():
            return candidate
    return None
