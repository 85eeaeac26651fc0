"""The learned relation classifier (issue 22): where it looks (candidates the rules left unbound),
what the encoder reads (the candidate replaced, the filer as "we"), its numpy softmax layer
(deterministic training, NaN rows), the weights file (the encoder it was trained against, its
format), the training file's refusal to hold a measured chunk, and its triples going through the
same gates as the rules' (a negated sentence rejected, a pending deal never proposed).

The backend tests run the real packaged MiniLM (ONNX int8, exported once per module into a
temporary cache) and the real weights shipped in the package.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

from graphrag_core.common.errors import ConfigurationError
from graphrag_core.extraction.backends import LearnedBackend, RulesBackend, build_backend
from graphrag_core.extraction.evaluation import load_gold_sets
from graphrag_core.extraction.gates import Candidate as GateCandidate
from graphrag_core.extraction.gates import ChunkContext, judge
from graphrag_core.extraction.grounding import Filer
from graphrag_core.extraction.relation_candidates import (
    MAX_MARKED,
    MAX_SENTENCE,
    STAND_IN,
    candidates,
    cue_features,
    marked,
)
from graphrag_core.extraction.relation_classifier import (
    CLASSES,
    NONE,
    RelationClassifier,
    train,
)
from graphrag_core.extraction.relation_training import (
    label_of,
    load_train_cases,
    training_examples,
)
from graphrag_core.extraction.triples import CandidateTriple
from graphrag_core.settings import ExtractionSettings, RetrievalSettings
from tests.extraction_inputs import FILER, filer_chunk

EMPTY = RulesBackend.from_rows([]).gazetteer


def _names(text: str, filer: Filer = FILER, **kw) -> list[str]:
    return [c.name for c in candidates(text, filer, EMPTY, **kw)]


# -- candidates ------------------------------------------------------------------------------


def test_a_named_party_near_a_relation_word_with_the_filer_is_a_candidate():
    text = "Harwick Labs Inc. has manufactured our flagship sensors for more than a decade."
    assert _names(text) == ["Harwick Labs Inc."]
    (c,) = candidates(text, FILER, EMPTY)
    assert text[c.sentence_start + c.start : c.sentence_start + c.end] == "Harwick Labs Inc."
    assert c.sentence[c.filer_start : c.filer_end] == "our"


def test_no_candidate_without_a_trigger_the_filer_or_a_name():
    # no relation word
    assert _names("Harwick Labs Inc. reported record results and we noted them.") == []
    # no filer mention: a fact about two others is not a relation with the filer
    assert _names("Harwick Labs Inc. supplies Corvane Systems Inc. with sensors.") == []
    # a relation word and the filer, but no organisation
    assert _names("We purchase our sensors from several suppliers in Asia.") == []


def test_parties_the_rules_bound_the_filer_and_its_own_lines_are_not_asked_again():
    from graphrag_core.common.names import name_key

    text = "Our suppliers include Harwick Labs Inc. and Corvane Systems Inc."
    assert _names(text) == ["Harwick Labs Inc.", "Corvane Systems Inc."]
    bound = frozenset({name_key("Harwick Labs Inc.")})
    assert _names(text, bound=bound) == ["Corvane Systems Inc."]
    # "Halvern Pro Suite": a line named after the filer, no legal form; "Halvern Field
    # Services LLC" (legal form) stays a candidate: subsidiaries carry their parent's name.
    own = "We license Halvern Pro Suite to customers, and Halvern Field Services LLC hosts it."
    assert _names(own) == ["Halvern Field Services LLC"]


def test_generic_capitalised_runs_and_lone_words_are_not_candidates():
    names = _names("We compete with Other Railroads and Carriers in Texas.")
    assert "Other Railroads" not in names and "Texas" not in names
    assert _names("Our customers in California buy from us.") == []


def test_a_name_far_from_any_relation_word_is_not_a_candidate():
    far = (
        "We signed a supply agreement last year, and in a separate and unrelated matter that "
        "concerned only our headquarters lease, Corvane Systems Inc. was the landlord's agent."
    )
    assert _names(far) == []


def test_marking_replaces_the_candidate_and_the_filer():
    (c,) = candidates("Harwick Labs Inc. has manufactured our flagship sensors.", FILER, EMPTY)
    assert marked(c) == f"{STAND_IN} has manufactured we flagship sensors."
    assert len(cue_features(c)) == len(cue_features(c))  # fixed width
    assert cue_features(c)[0:3] == [0.0, 0.0, 0.0]  # no ownership words near it


def test_hostile_text():
    assert candidates("", FILER, EMPTY) == []
    assert candidates("   \n\t ", FILER, EMPTY) == []
    # one "sentence" longer than any real one: a table or a run-together list, not read
    huge = "We purchase parts from Harwick Labs Inc. and " + "more parts, " * MAX_SENTENCE
    assert candidates(huge, FILER, EMPTY) == []
    # odd unicode: zero-width and right-to-left marks, emoji, NUL; nothing raises
    odd = "We purchase\u200b chips from Harwick Labs Inc.\u202e 🚀 \x00 under a supply agreement."
    found = candidates(odd, FILER, EMPTY)
    assert [c.name for c in found] == ["Harwick Labs Inc."]
    # a long sentence is cut around the candidate, whole words, both stand-ins kept
    long = (
        "We purchase "
        + "very " * 150
        + "specialised parts from Harwick Labs Inc. under a supply agreement "
        + "that runs "
        + "for many years " * 60
        + "."
    )
    (c,) = candidates(long, FILER, EMPTY)
    text = marked(c)
    assert STAND_IN in text and len(text) <= MAX_MARKED + 20
    # injection strings in a name are text like any other
    sql = "We purchase parts from Robert'); DROP TABLE Suppliers;-- Inc. under a supply agreement."
    for c in candidates(sql, FILER, EMPTY):
        assert STAND_IN in marked(c)


# -- the softmax layer -----------------------------------------------------------------------


def _toy(seed: int = 0) -> tuple[np.ndarray, list[str]]:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(len(CLASSES), 8))
    labels = [CLASSES[i % len(CLASSES)] for i in range(60)]
    x = np.array([centres[CLASSES.index(lab)] + 0.1 * rng.normal(size=8) for lab in labels])
    return x, labels


def test_training_is_deterministic_and_learns_a_separable_set():
    x, labels = _toy()
    a = train(x, labels, "enc", seed=7, epochs=300)
    b = train(x, labels, "enc", seed=7, epochs=300)
    assert np.array_equal(a.weights, b.weights) and np.array_equal(a.bias, b.bias)
    predicted = [CLASSES[i] for i in a.probabilities(x).argmax(axis=1)]
    assert predicted == labels
    # another seed orders the examples differently; the fit is the same to rounding
    c = train(x, labels, "enc", seed=8, epochs=300)
    assert np.allclose(a.weights, c.weights, atol=1e-8)


def test_training_refuses_bad_input():
    x, labels = _toy()
    with pytest.raises(ValueError):
        train(x, labels[:-1], "enc")
    with pytest.raises(ValueError):
        train(x, [*labels[:-1], "OWNS"], "enc")
    bad = x.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError):
        train(bad, labels, "enc")
    with pytest.raises(ValueError):
        train(np.zeros((0, 8)), [], "enc")


def test_a_row_that_is_not_finite_is_none():
    x, labels = _toy()
    model = train(x, labels, "enc", epochs=100)
    rows = np.vstack([x[:2], np.full((1, 8), np.nan), np.full((1, 8), np.inf)])
    p = model.probabilities(rows)
    assert np.isfinite(p).all() and np.allclose(p.sum(axis=1), 1.0)
    assert (p[2:, CLASSES.index(NONE)] == 1.0).all()
    assert model.probabilities(np.zeros((0, 8))).shape == (0, len(CLASSES))


def test_weights_file_round_trip_and_refusals(tmp_path: Path):
    x, labels = _toy()
    model = train(x, labels, "enc-a", epochs=50)
    path = tmp_path / "w.npz"
    model.save(path)
    back = RelationClassifier.load(path)
    assert back.model_id == "enc-a" and np.allclose(back.weights, model.weights, atol=1e-6)

    class Encoder:
        model_id = "enc-b"

        def embed(self, texts: list[str]) -> np.ndarray:
            raise AssertionError("never called")

    with pytest.raises(ConfigurationError, match="trained against"):
        back.check_encoder(Encoder())
    with pytest.raises(ConfigurationError, match="no relation classifier weights"):
        RelationClassifier.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip at all")
    with pytest.raises(ConfigurationError, match="not a relation classifier"):
        RelationClassifier.load(tmp_path / "junk.npz")
    # weights of another feature list (an older file) are refused, not misread
    meta = json.dumps({"format": 1, "model_id": "enc-a", "classes": list(CLASSES)})
    with (tmp_path / "old.npz").open("wb") as fh:
        np.savez(fh, weights=model.weights, bias=model.bias, meta=np.array(meta))
    with pytest.raises(ConfigurationError, match="feature list"):
        RelationClassifier.load(tmp_path / "old.npz")
    nan = RelationClassifier(model.weights * np.nan, model.bias, "enc-a")
    nan.save(tmp_path / "nan.npz")
    with pytest.raises(ConfigurationError, match="not finite"):
        RelationClassifier.load(tmp_path / "nan.npz")


def test_the_learned_backend_needs_an_encoder():
    settings = ExtractionSettings(learned=True)
    with pytest.raises(ConfigurationError, match="sentence encoder"):
        build_backend(settings)
    assert build_backend(ExtractionSettings(learned=False)).name == "rules"


def test_settings_read_the_environment(monkeypatch):
    monkeypatch.setenv("EXTRACTOR_LEARNED", "true")
    monkeypatch.setenv("EXTRACTOR_LEARNED_THRESHOLD", "0.97")
    settings = ExtractionSettings()
    assert settings.learned is True and settings.learned_threshold == 0.97
    for bad in ("nan", "inf", "1.5", "-0.1"):
        monkeypatch.setenv("EXTRACTOR_LEARNED_THRESHOLD", bad)
        with pytest.raises(ValueError):
            ExtractionSettings()


# -- the training data -------------------------------------------------------------------------


def _gold():
    s = ExtractionSettings()
    return load_gold_sets(s.gold_set, s.blind_set, s.blind2_set)


def _train_line(**kw) -> str:
    row = {
        "case_id": "t-1",
        "split": "train",
        "source": "synth",
        "company": "Halvern Dynamics, Inc.",
        "chunk_id": "synth:1",
        "text": "Harwick Labs Inc. has manufactured our flagship sensors.",
        "relations": [],
    }
    return json.dumps({**row, **kw}) + "\n"


def test_the_training_file_refuses_a_measuredfiler_chunk(tmp_path: Path):
    gold = _gold()
    dev = next(c for c in gold if c.split == "dev")
    blind = next(c for c in gold if c.split == "blind")
    path = tmp_path / "train.jsonl"
    path.write_text(_train_line(), encoding="utf-8")
    assert [c.case_id for c in load_train_cases(path, gold)] == ["t-1"]
    for clash in (
        _train_line(chunk_id=dev.chunk_id),
        _train_line(chunk_id=blind.chunk_id),
        # the same text under another id, spaced differently, is the same chunk
        _train_line(text="  " + "\n".join(blind.text.split()) + " "),
    ):
        path.write_text(clash, encoding="utf-8")
        with pytest.raises(ConfigurationError, match="gold or blind"):
            load_train_cases(path, gold)
    path.write_text(_train_line(split="holdout"), encoding="utf-8")
    with pytest.raises(ConfigurationError):
        load_train_cases(path, gold)
    path.write_text(_train_line() + _train_line(case_id="t-2"), encoding="utf-8")
    with pytest.raises(ConfigurationError, match="twice"):
        load_train_cases(path, gold)


def test_the_shipped_training_file_is_clean_and_never_trains_on_holdout_or_blind():
    gold = _gold()
    train_cases = load_train_cases(ExtractionSettings().train_set, gold)
    assert train_cases and {c.source for c in train_cases} <= {"synth", "draw"}
    for c in train_cases:
        for r in c.relations:
            assert r.evidence in c.text, c.case_id
    examples = training_examples(gold, train_cases, EMPTY)
    sources = {e.source for e in examples}
    assert sources <= {"dev", "synth", "draw"} and "dev" in sources
    assert {e.label for e in examples} > {NONE}


def test_labels_come_from_the_candidates_own_sentence():
    from graphrag_core.extraction.evaluation import GoldRelation

    text = (
        "Harwick Labs Inc. manufactures our sensors. "
        "We also buy cables, and Corvane Systems Inc. competes with Harwick Labs Inc."
    )
    rel = GoldRelation(
        subject="Harwick Labs Inc.",
        relation="SUPPLIES",
        object="Halvern Dynamics, Inc.",
        evidence="Harwick Labs Inc. manufactures our sensors.",
    )
    labels = {
        (c.name, c.sentence.strip()[:8]): label_of(c, [rel], FILER)
        for c in candidates(text, FILER, EMPTY)
    }
    assert labels[("Harwick Labs Inc.", "Harwick ")] == "SUPPLIES"
    # the same name in another sentence: not a positive, not a `none` either
    assert labels.get(("Harwick Labs Inc.", "We also ")) is None
    assert labels[("Corvane Systems Inc.", "We also ")] == NONE


# -- the backend, with the real model and the shipped weights -----------------------------------


def _judged(backend: LearnedBackend, text: str) -> list[tuple[dict, str]]:
    (reply,) = asyncio.run(backend.extract([filer_chunk(text)]))
    context = ChunkContext(
        "c1", text, 0, None, filer=FILER, section="10-K/Item 1", fiscal_year=2025
    )
    out = []
    for item in json.loads(reply.raw_output or "{}")["triples"]:
        verdict = judge(GateCandidate.of(CandidateTriple.model_validate(item)), context)
        code = "accepted" if verdict.accepted else verdict.rejection.reason.value  # type: ignore[union-attr]
        out.append((item, code))
    return out


@pytest.mark.real_embeddings
def test_shipped_weights_fit_the_packaged_model(encoder):
    weights = RelationClassifier.load(ExtractionSettings().learned_weights)
    weights.check_encoder(encoder)
    fp32 = type(encoder)(
        RetrievalSettings(onnx_quantize="none", model_cache=encoder.settings.model_cache)
    )
    with pytest.raises(ConfigurationError, match="trained against"):
        LearnedBackend(RulesBackend.from_rows([]), weights, fp32, 0.9)


@pytest.mark.real_embeddings
def test_a_learned_triple_goes_through_the_same_gates(encoder):
    weights = RelationClassifier.load(ExtractionSettings().learned_weights)
    backend = LearnedBackend(RulesBackend.from_rows([]), weights, encoder, threshold=0.9)
    assert backend.name == "rules+learned" and "+learned@" in backend.prompt_version
    # the rules have no cue for "has manufactured our …": the classifier states it
    found = _judged(backend, "Harwick Labs Inc. has manufactured our flagship sensors.")
    assert [(t["subject"], t["relation"], t["method"], code) for t, code in found] == [
        ("Harwick Labs Inc.", "SUPPLIES", "learned", "accepted")
    ]
    assert 0.9 <= found[0][0]["score"] <= 1.0
    # at threshold 0 every non-`none` guess is proposed; the gates still reject a denial
    eager = LearnedBackend(RulesBackend.from_rows([]), weights, encoder, threshold=0.0)
    denied = _judged(eager, "Harwick Labs Inc. has never manufactured our flagship sensors.")
    assert denied and all(code == "negated" for _, code in denied)
    # a deal still to close makes no subsidiary, however sure the classifier is
    pending = _judged(
        eager,
        "We have agreed to acquire Corvane Systems Inc.; the acquisition is subject to "
        "regulatory approval and is expected to close in 2027.",
    )
    assert [t for t, _ in pending if t["relation"] == "SUBSIDIARY_OF"] == []


@pytest.mark.real_embeddings
def test_the_backend_is_the_rules_plus_additions_and_survives_hostile_chunks(encoder):
    weights = RelationClassifier.load(ExtractionSettings().learned_weights)
    rules = RulesBackend.from_rows([])
    backend = LearnedBackend(rules, weights, encoder, threshold=0.9)
    texts = [
        "Our suppliers include Harwick Labs Inc. and Corvane Systems Inc.",
        "",
        "We purchase parts from Harwick Labs Inc. " + "and more parts " * 2000,
        "We buy\u200b parts from Harwick Labs Inc.\u202e 🚀 \x00 under a supply agreement.",
        "Net sales rose 4% in fiscal 2025.",
    ]
    replies = backend.extract_batch([filer_chunk(t) for t in texts])
    for text, reply in zip(texts, replies, strict=True):
        rule_triples = json.loads(rules.extract_one(filer_chunk(text)).raw_output or "")["triples"]
        triples = json.loads(reply.raw_output or "")["triples"]
        # the rules' triples first, unchanged; the classifier only adds
        assert triples[: len(rule_triples)] == rule_triples
        assert all(t["method"] == "learned" for t in triples[len(rule_triples) :])


@pytest.mark.real_embeddings
def test_the_pipeline_resource_builds_the_learned_backend(encoder):
    from assets.resources import ExtractorResource

    retrieval = RetrievalSettings(model_cache=encoder.settings.model_cache)
    on = ExtractorResource(ExtractionSettings(learned=True), retrieval).build(tickers=[])
    assert isinstance(on, LearnedBackend) and on.threshold == ExtractionSettings().learned_threshold
    off = ExtractorResource(ExtractionSettings(learned=False), retrieval).build(tickers=[])
    assert off.name == "rules"


@pytest.mark.real_embeddings
def test_the_training_command_is_deterministic(encoder, tmp_path: Path, monkeypatch, capsys):
    from pipelines.cli import main

    monkeypatch.setenv("GRAPHRAG_RETRIEVAL_MODEL_CACHE", str(encoder.settings.model_cache))
    tiny = tmp_path / "train.jsonl"
    rel = {
        "subject": "Harwick Labs Inc.",
        "relation": "SUPPLIES",
        "object": "Halvern Dynamics, Inc.",
        "evidence": "Harwick Labs Inc. has manufactured our flagship sensors",
    }
    tiny.write_text(
        _train_line(
            text="Harwick Labs Inc. has manufactured our flagship sensors since 2019.",
            relations=[rel],
        ),
        encoding="utf-8",
    )
    weights = []
    for run in ("a", "b"):
        out = tmp_path / f"{run}.npz"
        args = ["train-relation-classifier", "--train-cases", str(tiny), "--out", str(out)]
        assert main([*args, "--no-curve"]) == 0
        weights.append(RelationClassifier.load(out))
    assert "synth" in capsys.readouterr().out  # the per-source table names the tiny file's rows
    assert np.array_equal(weights[0].weights, weights[1].weights)
    assert weights[0].trained_on == weights[1].trained_on
    assert weights[0].model_id == encoder.model_id
    # a training file that holds a measured chunk stops the command with an error
    dev = next(c for c in _gold() if c.split == "dev")
    tiny.write_text(_train_line(chunk_id=dev.chunk_id), encoding="utf-8")
    args = ["train-relation-classifier", "--train-cases", str(tiny), "--out", str(tmp_path / "c")]
    assert main([*args, "--no-curve"]) == 2


def test_the_training_command_refuses_hostile_arguments(tmp_path: Path, capsys):
    from pipelines.cli import main

    bad_json = tmp_path / "bad.jsonl"
    bad_json.write_text('{"case_id": "t-1", "split": "train",\n', encoding="utf-8")
    latin1 = tmp_path / "latin1.jsonl"
    latin1.write_bytes(
        _train_line().replace("Halvern", "H\\u00e9lvern").encode().replace(b"\\u00e9", b"\xe9")
    )
    nan_case = tmp_path / "nan.jsonl"
    nan_case.write_text(_train_line(relations=[{"subject": "x"}]), encoding="utf-8")
    for path in (tmp_path / "missing.jsonl", tmp_path, bad_json, latin1, nan_case):
        out = tmp_path / "never.npz"  # never the packaged weights, whatever happens
        args = ["train-relation-classifier", "--train-cases", str(path), "--out", str(out)]
        code = main([*args, "--no-curve"])
        assert code == 2, path
        assert "error:" in capsys.readouterr().err
    for seed in ("-1", "nan", "1e9", "; rm -rf /", "9" * 40):
        with pytest.raises(SystemExit) as stop:
            main(["train-relation-classifier", "--seed", seed, "--out", str(tmp_path / "x")])
        assert stop.value.code == 2


def test_the_trigger_scan_shortcut_finds_what_the_plain_pattern_finds():
    import re

    from graphrag_core.extraction import relation_candidates as rc

    plain = re.compile(rc.TRIGGER.pattern.replace(rc.TRIGGER_FIRST_LETTERS, "", 1), re.I)
    assert plain.pattern != rc.TRIGGER.pattern
    texts = [c.text for c in _gold() if c.split in ("dev", "holdout")]
    texts.append("Acquired, SUPPLIERS, hosts, Rivals, bottlers, lessees, vendors, foundries.")
    for text in texts:
        assert [m.span() for m in rc.TRIGGER.finditer(text)] == [
            m.span() for m in plain.finditer(text)
        ]
