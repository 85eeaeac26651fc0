"""The one sentence splitter, in both of its uses (prose packing, and the sentence that carries
an extracted relation)."""

from graphrag_core.text.sentences import sentence_spans


def _sentences(text: str, **kwargs) -> list[str]:
    return [text[s:e] for s, e in sentence_spans(text, **kwargs)]


def test_initials_and_runs_of_initials_never_end_a_sentence():
    text = "Our competitors include Adidas and V.F. Corporation in apparel. J. Smith leads it."
    assert _sentences(text) == [
        "Our competitors include Adidas and V.F. Corporation in apparel.",
        "J. Smith leads it.",
    ]


def test_abbreviations_and_decimals():
    text = "Sales in the U.S. rose 4.5% vs. last year. Revenue grew."
    assert _sentences(text) == ["Sales in the U.S. rose 4.5% vs. last year.", "Revenue grew."]


def test_line_breaks_end_sentences_only_when_asked():
    text = "Our suppliers include:\n• TSMC\n• Samsung"
    assert _sentences(text) == [text]
    assert _sentences(text, split_lines=True) == ["Our suppliers include:", "• TSMC", "• Samsung"]


def test_prose_packing_wants_a_capital_after_the_period():
    text = "It rose 3 pct. in the quarter. Then it fell."
    assert _sentences(text, require_capital=True) == ["It rose 3 pct. in the quarter.", "Then it fell."]
    assert len(_sentences(text)) == 3
