"""The Definitions as a newcomer meets them: every asset check named once, and the README's
picture of the asset graph drawn from the same assets and dependencies."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def asset_graph():
    from pipelines.definitions import defs

    return defs.resolve_asset_graph()


def test_every_asset_check_name_is_unique(asset_graph):
    """A check is found by its name in the UI, the logs and the recorded verdicts; two assets'
    checks of one name (knowledge_graph's and graph_snapshot's edges_have_evidence once) read
    as one check."""
    names = Counter(key.name for key in asset_graph.asset_check_keys)
    assert len(names) >= 10
    assert [name for name, count in names.items() if count > 1] == []
