"""The rules, then the learned relation classifier on what they left unbound.

Per batch of chunks: the rules run on each chunk as they do alone; the sentences with a relation
trigger, a filer mention and an organisation the rules did not relate become candidates
(`relation_candidates`), all of the batch's candidates are embedded at once by the injected
encoder, and a candidate whose most likely class is a relation with probability at least the
threshold becomes a triple with its sentence as evidence. Those triples are added to the rules'
reply and go through the same gates as every other triple (grounding, mood, forward-looking,
types, values); each carries `"method": "learned"` and its `score`, which the lenient reader
(`CandidateTriple`) ignores and the extraction row's raw output keeps.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from graphrag_core.common.ids import content_hash, sha256_bytes
from graphrag_core.common.names import name_key
from graphrag_core.extraction import relation_candidates as candidates_module
from graphrag_core.extraction import relation_classifier as classifier_module
from graphrag_core.extraction.backends.base import ChunkInput, RawResult
from graphrag_core.extraction.backends.rules_backend import RulesBackend, traced_payload
from graphrag_core.extraction.gazetteer import Mention
from graphrag_core.extraction.grounding import Filer
from graphrag_core.extraction.ownership import NOT_DONE
from graphrag_core.extraction.relation_candidates import Candidate, candidates
from graphrag_core.extraction.relation_classifier import (
    NONE,
    PARENT,
    RelationClassifier,
    SentenceEncoder,
    featurize,
)
from graphrag_core.extraction.triples import Relation, Triple

OWNERSHIP = frozenset({Relation.SUBSIDIARY_OF.value, PARENT})
LEARNED = "learned"  # the method code of a classifier's triple; its `score` is the confidence


def learned_triple(c: Candidate, label: str, filer: Filer) -> Triple:
    """The triple a class states between the candidate and the filer, in the gold's directions."""
    if label == Relation.COMPETES_WITH:
        subject, relation, obj = filer.name, Relation.COMPETES_WITH, c.name
    elif label == PARENT:
        subject, relation, obj = filer.name, Relation.SUBSIDIARY_OF, c.name
    else:
        subject, relation, obj = c.name, Relation(label), filer.name
    return Triple(
        subject=subject,
        relation=relation,
        object=obj,
        value=None,
        value_low=None,
        value_high=None,
        unit=None,
        period=None,
        evidence=c.sentence.strip(),
    )


class RememberingEncoder:
    """The encoder with the vectors of the last `size` distinct texts kept: a filer repeats its
    sentences from filing to filing (a 10-K's business description in every 10-Q), and the same
    sentence appears once per candidate it holds."""

    def __init__(self, encoder: SentenceEncoder, size: int = 4096):
        self.encoder = encoder
        self.model_id = encoder.model_id
        self.size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def embed(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            for text, vector in zip(missing, self.encoder.embed(missing), strict=True):
                self._vectors[text] = vector
        rows = []
        for text in texts:
            self._vectors.move_to_end(text)
            rows.append(self._vectors[text])
        while len(self._vectors) > self.size:
            self._vectors.popitem(last=False)
        return np.array(rows).reshape(len(texts), -1)


class LearnedBackend(RulesBackend):
    """`RulesBackend` plus the relation classifier over what the rules left unbound."""

    name = "rules+learned"

    def __init__(
        self,
        rules: RulesBackend,
        classifier: RelationClassifier,
        encoder: SentenceEncoder,
        threshold: float,
    ):
        classifier.check_encoder(encoder)
        super().__init__(rules.gazetteer)
        self.classifier = classifier
        self.encoder = RememberingEncoder(encoder)
        self.threshold = threshold
        self._last: tuple[str, list[Mention], list[tuple[int, int]]] = ("", [], [])
        # The version changes with the weights, the threshold and the code that picks and
        # reads the candidates, as the rules' version does with theirs.
        code = [
            sha256_bytes(Path(module).read_bytes())
            for module in (__file__, candidates_module.__file__, classifier_module.__file__)
        ]
        weights = content_hash(
            classifier.weights.tobytes(), classifier.bias.tobytes(), threshold, *code, length=12
        )
        self.model = f"{self.model}+{encoder.model_id}"
        self.prompt_version = f"{self.prompt_version}+learned@{weights}"

    def _read(self, text: str) -> tuple[list[Mention], list[tuple[int, int]]]:
        # The rules read each passage first; the candidates reuse what they found there.
        self._last = (text, *super()._read(text))
        return self._last[1], self._last[2]

    async def extract(self, chunks: Sequence[ChunkInput]) -> list[RawResult]:
        return self.extract_batch(chunks)

    def extract_one(self, chunk: ChunkInput) -> RawResult:
        return self.extract_batch([chunk])[0]

    def extract_batch(self, chunks: Sequence[ChunkInput]) -> list[RawResult]:
        started = time.perf_counter()
        found: list[list[tuple[Triple, str]]] = []
        pending: list[tuple[int, Candidate]] = []
        for i, chunk in enumerate(chunks):
            found.append(self.traced(chunk))
            if chunk.kind == "table" or "Exhibit 21" in chunk.section:
                continue
            pending += [(i, c) for c in self.candidates(chunk, [t for t, _ in found[-1]])]
        added: list[list[dict]] = [[] for _ in chunks]
        if pending:
            probabilities = self.classifier.probabilities(
                featurize([c for _, c in pending], self.encoder)
            )
            none = self.classifier.classes.index(NONE)
            for (i, c), p in zip(pending, probabilities, strict=True):
                best = int(p.argmax())
                if best == none or not p[best] >= self.threshold:
                    continue
                label = self.classifier.classes[best]
                if label in OWNERSHIP and NOT_DONE.search(c.sentence):
                    # A deal not (yet) done makes no subsidiary; the gates judge mood and time,
                    # not whether a deal closed, so the rules' own test for it applies here too.
                    continue
                chunk = chunks[i]
                filer = Filer(chunk.company, chunk.cik, chunk.ticker)
                triple = learned_triple(c, label, filer)
                added[i].append(
                    {
                        **triple.model_dump(mode="json"),
                        "method": LEARNED,
                        "score": round(float(p[best]), 4),
                    }
                )
        # Each chunk's share of the batch's time, by its number of chunks: the embedding is shared.
        each = (time.perf_counter() - started) * 1000 / max(len(chunks), 1)
        out = []
        for traced, extra in zip(found, added, strict=True):
            payload = traced_payload(traced)
            payload["triples"] += extra
            out.append(
                RawResult(
                    raw_output=json.dumps(payload, ensure_ascii=False), attempts=0, latency_ms=each
                )
            )
        return out

    def candidates(self, chunk: ChunkInput, rules_triples: list[Triple]) -> list[Candidate]:
        """The chunk's candidates, less the parties the rules already related."""
        bound = frozenset(
            key for t in rules_triples for key in (name_key(t.subject), name_key(t.object)) if key
        )
        text, mentions, spans = self._last
        read = (mentions, spans) if text == chunk.text else self._read(chunk.text)
        filer = Filer(chunk.company, chunk.cik, chunk.ticker)
        return candidates(chunk.text, filer, self.gazetteer, bound, read=read)
