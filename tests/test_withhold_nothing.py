"""Issue 22, item 3: resolution that withholds nothing. A party no register knows that reads as
an organisation is a provisional ORG node; a risk heading outside the taxonomy is a risk node of
its own under its nearest category; a guided figure outside the catalog is a metric of its own;
a ticker is never read inside a longer name; a former name is its registrant's."""

from __future__ import annotations

import pytest

from graphrag_core.graph import ontology
from graphrag_core.graph.curated import load_curated
from graphrag_core.graph.resolution import Registry
from graphrag_core.graph.risk_taxonomy import BY_KEY, TAXONOMY, classify_risk

BOYD, MAGNA, MCKESSON, LUMENTUM = "0000906553", "0001069258", "0000927653", "0001633978"
FILER = "CIK-0000000001"
TICKERS = [
    {"cik": BOYD, "ticker": "BYD", "title": "BOYD GAMING CORP"},
    {"cik": MAGNA, "ticker": "MGA", "title": "MAGNA INTERNATIONAL INC"},
    {"cik": MCKESSON, "ticker": "MCK", "title": "MCKESSON CORP"},
    {"cik": LUMENTUM, "ticker": "LITE", "title": "Lumentum Holdings Inc."},
]
SUBMISSIONS = {MCKESSON: {"name": "MCKESSON CORP", "formerNames": [{"name": "MCKESSON HBOC INC"}]}}
EMPTY = load_curated().model_copy(update={"companies": (), "organizations": ()})


def registry(merges: dict[str, str] | None = None) -> Registry:
    return Registry.build(tickers=TICKERS, submissions=SUBMISSIONS, curated=EMPTY, merges=merges)


@pytest.mark.parametrize(
    ("name", "org_id"),
    [
        ("Sojitz", "ORG:sojitz"),
        ("ASICS", "ORG:asics"),
        ("Massmart", "ORG:massmart"),
        ("Discover Financial Services", "ORG:discover-financial-services"),
        ("JCB", "ORG:jcb"),
    ],
)
def test_an_unknown_organisation_is_a_provisional_node_not_withheld(name, org_id):
    res = registry().resolve(name, ontology.PARTY, FILER)
    assert res.resolved and res.entity_id == org_id and res.entity_type == "organization"
    assert res.method.startswith("provisional_org:") and res.review_reason is None
    assert res.name == name  # the filer's spelling is the node's name
    assert ontology.ENTITY_ID_RE.match(org_id)


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("Data Center segment", "not_org:segment"),
        ("nivolumab", "not_org:drug"),
        ("Instinct MI300X accelerators", "not_org:product"),
        (
            "Certain of our executives and directors own a majority of our common stock",
            "not_org:sentence",
        ),
        ("our distributors", "not_org:generic_noun"),
    ],
)
def test_a_name_that_is_no_organisation_stays_out_with_its_reason(name, reason):
    res = registry().resolve(name, ontology.PARTY, FILER)
    assert not res.resolved and res.review_reason == reason


def test_a_close_name_is_published_and_its_merge_proposed_reversibly():
    """'Lumentum' is near Lumentum Holdings: its own node, with the merge proposed; the merge
    log's decision redirects it, and without that decision it is its own node again."""
    res = registry().resolve("Lumentum", ontology.PARTY, FILER)
    assert res.entity_id == "ORG:lumentum" and res.review_reason == "possible_duplicate"
    assert [c.entity_id for c in res.candidates] == [f"CIK-{LUMENTUM}"]
    merged = registry({"ORG:lumentum": f"CIK-{LUMENTUM}"}).resolve(
        "Lumentum", ontology.PARTY, FILER
    )
    assert merged.entity_id == f"CIK-{LUMENTUM}" and merged.review_reason is None
    assert registry({}).resolve("Lumentum", ontology.PARTY, FILER).entity_id == "ORG:lumentum"


def test_a_ticker_never_resolves_a_token_inside_a_longer_name():
    reg = registry()
    assert reg.resolve("BYD", ontology.PARTY, FILER).entity_id == f"CIK-{BOYD}"
    byd_auto = reg.resolve("BYD Auto", ontology.PARTY, FILER)
    assert byd_auto.entity_id == "ORG:byd-auto"
    mga = reg.resolve("MGA Entertainment", ontology.PARTY, FILER)
    assert mga.entity_id == "ORG:mga-entertainment"


def test_a_former_name_is_its_registrant():
    reg = registry()
    for name in ("McKesson HBOC", "McKesson HBOC, Inc.", "MCKESSON HBOC INC"):
        assert reg.resolve(name, ontology.PARTY, FILER).entity_id == f"CIK-{MCKESSON}"


def test_a_risk_heading_outside_the_taxonomy_is_its_own_risk_keeping_its_words():
    reg = registry()
    heading = "Our reliance on a small number of franchisees could harm our results"
    res = reg.resolve(heading, ontology.RISK_REFERENCE, FILER)
    assert res.resolved and res.entity_type == "risk" and res.name == heading
    assert res.entity_id == "RISK:other.our-reliance-on-a-small-number-of-franchisees"
    assert ontology.ENTITY_ID_RE.match(res.entity_id or "")
    # One word that only leans towards a category (below the taxonomy's bar) files it there.
    leaning = reg.resolve("Our exports may decline", ontology.RISK_REFERENCE, FILER)
    assert leaning.entity_id == "RISK:export-controls.our-exports-may-decline"
    # A taxonomy phrase still resolves to its category.
    assert (
        reg.resolve("export controls", ontology.RISK_REFERENCE, FILER).entity_id
        == "RISK:export-controls"
    )


def test_acquisition_risk_is_its_own_category_not_share_price():
    assert len(TAXONOMY) == 25 and "acquisitions" in BY_KEY
    heading = (
        "We may not realize the anticipated benefits of our recent acquisitions, and the "
        "integration of acquired businesses may be more difficult than expected"
    )
    assert classify_risk(heading).category == BY_KEY["acquisitions"]
    assert (
        classify_risk("The market price of our common stock may be volatile").category
        == BY_KEY["share-price"]
    )


@pytest.mark.parametrize(
    ("phrase", "metric"),
    [
        ("capital plan", "METRIC:capital_plan"),
        ("pension contributions", "METRIC:pension_contributions"),
        ("Share Repurchases", "METRIC:share_repurchases"),
    ],
)
def test_a_guided_figure_outside_the_catalog_is_its_own_metric(phrase, metric):
    res = registry().resolve(phrase, ontology.METRIC_REFERENCE, FILER)
    assert res.resolved and res.entity_id == metric and res.entity_type == "metric"
    assert res.name == phrase and ontology.ENTITY_ID_RE.match(metric)
    # Catalog metrics keep their ids.
    assert (
        registry().resolve("capital expenditures", ontology.METRIC_REFERENCE, FILER).entity_id
        == "METRIC:capex"
    )


# -- find_company finds every graph node (MCP) ------------------------------------------------
def _published_world(tmp_path, monkeypatch):
    from graphrag_core.settings import Settings
    from pipelines.ingest import run_corpus_job
    from tests.test_graph_cli import world_data_root

    root = world_data_root(tmp_path, monkeypatch)
    assert run_corpus_job(Settings()) == (True, None)
    return root


async def test_find_company_finds_every_graph_node(tmp_path, monkeypatch):
    """TSMC is in the graph (a company the filer names, with no filing of its own in the
    snapshot); Frobnitz Labs a provisional organization; both are found by name or alias."""
    from tests.mcp_client import call, session

    root = _published_world(tmp_path, monkeypatch)
    async with session(root) as client:
        tsmc = await call(client, "find_company", query="TSMC")
        assert tsmc["matches"][0]["company_id"] == "CIK-0001046179"
        frob = await call(client, "find_company", query="Frobnitz Labs")
        assert frob["matches"][0]["company_id"] == "ORG:frobnitz-labs"
        assert frob["matches"][0]["entity_type"] == "organization"
        nvidia = await call(client, "find_company", query="NVDA")
        ids = [m["company_id"] for m in nvidia["matches"]]
        assert ids.count("CIK-0001045810") == 1  # a filer is not listed twice


# -- publication share (the demo's summary, bench/graph.py --publication) ---------------------
def test_the_graph_publishes_every_accepted_claim_and_says_what_it_kept_out():
    """Frobnitz Labs (no register knows it) is published; a segment named as a customer is kept
    out as no organisation, with its reason; no claim is withheld by the review queue."""
    import polars as pl

    from pipelines.commands.status import publication_lines
    from tests.test_knowledge_graph import K25, build, edges, triple, world

    w = world()
    f, ts, obs = w[K25]
    w[K25] = (
        f,
        [
            *ts,
            triple(
                K25,
                "Data Center segment",
                "CUSTOMER_OF",
                "NVIDIA CORP",
                [("Data Center segment buys.", 7)],
            ),
            triple(
                K25,
                "NVIDIA CORP",
                "EXPOSED_TO_RISK",
                "Our reliance on franchisees could harm us",
                [("Our reliance on franchisees could harm us.", 8)],
            ),
            triple(
                K25,
                "NVIDIA CORP",
                "GUIDES",
                "pension contributions",
                [("We expect pension contributions of $1 billion.", 9)],
                "FY2026",
                1e9,
                "USD",
            ),
        ],
        obs,
    )
    store = build(w)
    rows = {r.relation: r for r in store.publication()}
    assert rows["COMPETES_WITH"].published == rows["COMPETES_WITH"].accepted
    assert rows["CUSTOMER_OF"].not_org == 1 and rows["CUSTOMER_OF"].withheld == 0
    assert sum(r.withheld for r in rows.values()) == 0
    assert rows["EXPOSED_TO_RISK"].share == 1.0 and rows["GUIDES"].share == 1.0
    risks = edges(store, "EXPOSED_TO_RISK").get_column("object_id").to_list()
    assert "RISK:other.our-reliance-on-franchisees-could-harm-us" in risks
    assert (
        edges(store, "GUIDES").filter(pl.col("object_id") == "METRIC:pension_contributions").height
        == 1
    )
    review = store.review_queue()
    assert (
        review.filter(pl.col("text") == "Data Center segment").row(0, named=True)["reason"]
        == "not_org:segment"
    )
    lines = publication_lines(list(rows.values()))
    assert lines[0].startswith("  relation mix of accepted claims: COMPETES_WITH ")
    assert "withheld by the review queue 0, kept out as no organisation 1" in lines[1]


# -- merge proposals by embedding similarity ------------------------------------------------
class _WordsEmbedder:
    """A stand-in for the MiniLM embedder: one dimension per word of a small vocabulary, so the
    expected cosines are known exactly."""

    VOCAB = ("taiwan", "semiconductor", "foundry", "wafers", "footwear", "japan", "trading", "tsmc")

    def embed(self, texts: list[str]):
        import numpy as np

        return np.array(
            [[float(w in t.lower().replace(",", " ").split()) for w in self.VOCAB] for t in texts]
        )


def test_a_provisional_organisation_gets_merge_proposals_by_name_and_context():
    from graphrag_core.graph.merge_proposals import Described, propose_merges
    from graphrag_core.settings import GraphSettings

    provisional = [
        Described("ORG:tsmc-arizona", "TSMC Arizona", "our foundry for wafers in taiwan"),
        Described("ORG:sojitz", "Sojitz", "a trading company in japan for footwear"),
    ]
    known = [
        Described("CIK-0001046179", "Taiwan Semiconductor", "the foundry that makes our wafers"),
        Described("ORG:tsmc-arizona", "TSMC Arizona", "our foundry for wafers in taiwan"),
    ]
    threshold = GraphSettings().embedding_merge_similarity
    proposals = propose_merges(provisional, known, _WordsEmbedder(), threshold)
    # The foundry is proposed (never the node itself); Sojitz has no near entity: nothing.
    assert [(p.entity_id, p.into) for p in proposals] == [("ORG:tsmc-arizona", "CIK-0001046179")]
    assert proposals[0].score >= threshold and proposals[0].via == "embedding"
    assert propose_merges(provisional, known, _WordsEmbedder(), 0.99) == []


def test_merge_proposals_by_meaning_never_pair_two_names_of_one_list():
    """`entities review` proposes merges by meaning over the graph's organizations: a
    provisional one near a known entity in another sentence is proposed; two names the filings
    tell apart (one list names both: same context, so the closest pair of all) never are."""
    import polars as pl

    from graphrag_core.graph.merge_proposals import graph_proposals

    foundries = "our foundry for wafers in taiwan, tsmc, and samsung"
    contexts = pl.DataFrame(
        {
            "entity_id": ["ORG:tsmc", "CIK-0001046179", "ORG:samsung", "ORG:sojitz"],
            "entity_type": ["organization", "company", "organization", "organization"],
            "name": ["TSMC", "Taiwan Semiconductor", "Samsung", "Sojitz"],
            "context": [
                foundries,
                "the taiwan semiconductor foundry that makes our wafers",
                foundries,
                "a trading company in japan for footwear",
            ],
            "provisional": [True, False, False, True],
        }
    )
    together = pl.DataFrame({"a": ["ORG:samsung"], "b": ["ORG:tsmc"]})
    # cosines: TSMC ~ Taiwan Semiconductor 0.75 (taiwan, foundry, wafers), TSMC ~ Samsung 1.0
    proposals = graph_proposals(contexts, together, _WordsEmbedder(), 0.7)
    assert [(p.entity_id, p.into) for p in proposals] == [("ORG:tsmc", "CIK-0001046179")]
    # Without the list rule, the two list-mates would be each other's best proposal.
    loose = graph_proposals(contexts, together.clear(), _WordsEmbedder(), 0.7)
    assert [(p.entity_id, p.into) for p in loose][0] == ("ORG:tsmc", "ORG:samsung")


def test_the_graph_store_gives_each_organisation_its_sentence_and_the_lists_it_shares():
    from tests.test_knowledge_graph import NVDA, TSM, build, world

    store = build(world())
    contexts = {r["entity_id"]: r for r in store.organisation_contexts().iter_rows(named=True)}
    frobnitz = contexts["ORG:frobnitz-labs"]
    assert frobnitz["provisional"] and frobnitz["context"] == "We compete with Frobnitz Labs."
    assert not contexts[f"CIK-{TSM}"]["provisional"]  # SEC's name: a registrant
    pairs = {(a, b) for a, b in store.named_together().iter_rows()}
    assert (
        tuple(sorted((f"CIK-{TSM}", "ORG:samsung-electronics"))) in pairs
    )  # one sentence names both
    assert (
        f"CIK-{NVDA}",
        "ORG:frobnitz-labs",
    ) in pairs  # an edge relates them: a rival is not oneself
    # Siblings: one filing states the same relation to the same party for both (NVIDIA's 2025
    # 10-K: Frobnitz Labs and Customer A in different chunks, a rival and a customer: not siblings).
    assert (
        "CIK-0000002488",
        "ORG:frobnitz-labs",
    ) not in pairs  # AMD: a rival in the 2023 10-K only
    assert len(pairs) == len(set(pairs))


def test_two_subsidiaries_one_exhibit_lists_apart_are_never_proposed_as_one():
    """An Exhibit 21 split over chunks: its rows are siblings (one filing, the same relation to
    the same parent), told apart however alike their names ("Alpha Widgets Europe LLC", "Alpha
    Widgets Asia LLC") — the Exxon and J.P. Morgan subsidiaries the corpus review proposed
    before."""
    from tests.test_knowledge_graph import K25, NVDA, build, triple, world

    filings = world()
    meta, triples, metrics = filings[K25]
    rows = [
        triple(
            K25,
            "Alpha Widgets Europe LLC",
            "SUBSIDIARY_OF",
            "NVIDIA CORP",
            [("Alpha Widgets Europe LLC Delaware", 7)],
        ),
        triple(
            K25,
            "Alpha Widgets Asia LLC",
            "SUBSIDIARY_OF",
            "NVIDIA CORP",
            [("Alpha Widgets Asia LLC Delaware", 8)],
        ),
    ]
    filings[K25] = (meta, [*triples, *rows], metrics)
    pairs = {(a, b) for a, b in build(filings).named_together().iter_rows()}
    assert ("ORG:alpha-widgets-asia", "ORG:alpha-widgets-europe") in pairs
    assert (f"CIK-{NVDA}", "ORG:alpha-widgets-europe") in pairs
