"""The Definitions as a newcomer meets them: every asset check named once (the README's picture
of the asset graph is compared with them in test_readme.py)."""

from __future__ import annotations

from collections import Counter

import pytest


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
