"""Sentences of the passages quoted by docchat itself, chosen by the question's words: the notes
of a round a small model could not write (docchat.context.rounds) and the quoted answer, the
form of an answer for a model that cannot cite what it was given (issue 39).

A sentence is scored by how many of the question's word stems it holds, divided by how many of
the passages hold it (a clause every contract shares says least about any one of them); one
holding none of them is never quoted. Nothing is added to a quote: it claims exactly what its
passage says, and cites it. A model judged to cite well may write one sentence above the quotes
(`lead_messages`; docchat.services.lead keeps it only if the quotes hold it).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from docchat.domain import Citation, by_number
from docchat.domain.grounding import REFUSAL
from docchat.context.value_table import asked_value, value_table
from docchat.domain.stated import escaped
from docchat.retrieval.words import query_terms, tokenize, words

MAX_QUOTES = 3
# A quote after the first is kept only if it scores at least this share of the first's.
KEPT_SHARE = 0.5
LEAD_PROMPT = ("Answer the question in one sentence, from the quotes alone: say nothing they do not say. "
               "End the sentence with the marks of the quotes it uses, such as [2].")
# What the earlier question's words are worth together beside one of the question's own: a
# follow-up that changes the subject ("What about parental leave?" after annual leave) is
# answered for what it asks, and the earlier words only break its ties. Counted per word, three
# of them ("days", "annual", "get") outweighed "parental" (seen on the page, stop 53).
CONTEXT_WEIGHT = 0.5
# What a document's row says when none of its passages' sentences holds the question's words.
NO_QUOTE = "none of its passages holds the question's words"
_MARK = re.compile(r"\[\d+\]")
_NEGATIONS = frozenset("no not nor never none cannot neither nothing nobody without".split())
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def sentences(text: str) -> list[str]:
    """The text's sentences; a Markdown heading ("## Sick leave") names a section, it says nothing."""
    return [" ".join(sentence.split()) for sentence in _SENTENCE.split(text)
            if sentence.strip() and not sentence.lstrip().startswith("#")]


def sentence_counts(texts: Iterable[str]) -> Counter[str]:
    """In how many of the texts each sentence is."""
    return Counter(sentence for text in texts for sentence in set(sentences(text)))


def stems(question: str) -> set[str]:
    return {_stem(term) for term in query_terms(question)}


def best_sentence(terms: set[str], text: str, counts: Counter[str], context: set[str] = frozenset()) -> tuple[float, str]:
    """The text's sentence holding the most of `terms` (and of `context`, all of which together
    count CONTEXT_WEIGHT) for the passages holding it, with its score; (0, "") when it holds none
    of them."""
    best: tuple[float, str] = (0.0, "")
    for sentence in sentences(text):
        held = {_stem(word) for word in tokenize(sentence)}
        if not (terms | context) & held:
            continue
        earlier = CONTEXT_WEIGHT * len(context & held) / len(context) if context else 0.0
        score = (len(terms & held) + earlier) / max(1, counts[sentence])
        best = max(best, (score, sentence), key=lambda pair: pair[0])
    return best


@dataclass(frozen=True)
class Quote:
    """A sentence quoted from the passage numbered `passage.number`, as it is written there."""

    passage: Citation
    sentence: str

    @property
    def number(self) -> int:
        return self.passage.number


def chosen_quotes(question: str, citations: Sequence[Citation], *, context: str = "",
                  max_quotes: int = MAX_QUOTES, per_document: bool = False) -> list[Quote]:
    """The best sentence of each of the `max_quotes` passages that answer best, best first; none
    when no passage holds any of the question's words. `context`: what a follow-up was searched
    with besides its words ("Is it paid?" after parental leave). `per_document`: a quote of each
    document that holds the question's words (its best), for a question about every document or
    comparing some, in the order the passages give them, however many there are."""
    passages = by_number(citations)
    texts = {number: "\n".join(c.text for c in chunks) for number, chunks in passages.items()}
    terms, counts = stems(question), sentence_counts(texts.values())
    context_terms = stems(context) - terms
    scored = [(*best_sentence(terms, text, counts, context_terms), number)
              for number, text in texts.items()]
    chosen = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[2]))
    if per_document:
        best: dict[str, tuple[float, str, int]] = {}
        for one in chosen:
            best.setdefault(passages[one[2]][0].document_id or passages[one[2]][0].document, one)
        chosen = sorted(best.values(), key=lambda s: s[2])
    else:
        # A sentence holding a fraction of what the best holds shares a word with the question, not
        # its subject ("How many days a week may staff work from home?" quoted the holiday's "25 days").
        chosen = [one for one in chosen[:max_quotes] if one[0] >= chosen[0][0] * KEPT_SHARE]
    return [Quote(passages[number][0], sentence) for _, sentence, number in chosen]


def quoted_answer(question: str, citations: Sequence[Citation], *, context: str = "",
                  max_quotes: int = MAX_QUOTES) -> str:
    """The answer as the passages' own sentences (`chosen_quotes`), each quoted and cited, one a line."""
    return quotes_text(chosen_quotes(question, citations, context=context, max_quotes=max_quotes))


def quotes_text(quotes: Sequence[Quote]) -> str:
    if not quotes:  # no passage holds any of the question's words
        return REFUSAL
    return "\n".join(f"- \u201c{quote.sentence}\u201d [{quote.number}]" for quote in quotes)


def documents_text(quotes: Sequence[Quote], citations: Sequence[Citation], *, side_by_side: bool,
                   left_out: Sequence[tuple[str, str]] = (), order: Sequence[str] = (), question: str = "") -> str:
    """A quoted answer about every document or comparing some (issue 54): a row for each document
    that gave passages, in the order they were given (those in `order`, by id, first, as a
    comparison names them), with its quote, or saying that none of its passages holds the
    question's words, then a row for each left out (name, why); `side_by_side`: a table of what
    each says (a comparison: of the documents in `order` alone, when it names them), else a list
    (the collection), or a table with the value the `question` asks of each (context.value_table)."""
    quoted = {_document(quote.passage): quote for quote in quotes}
    place = {document: n for n, document in enumerate(order)}
    documents = dict(sorted({_document(c): c.document for c in citations}.items(),
                            key=lambda item: place.get(item[0], len(place))))
    if side_by_side and place:  # a comparison's sides only: whole documents give passages of every one
        documents = {key: name for key, name in documents.items() if key in place}
        quoted = {key: quote for key, quote in quoted.items() if key in place}
    if not quoted:
        return REFUSAL
    kind = None if side_by_side else asked_value(question)
    if kind is not None:
        return value_table(kind, [
            *((name, quote.sentence if quote else None,
               f"\u201c{_cell(quote.sentence)}\u201d [{quote.number}]" if quote else NO_QUOTE)
              for key, name in documents.items() for quote in [quoted.get(key)]),
            *((name, None, f"left out: {escaped(why)}" if why else "left out") for name, why in left_out)])
    rows = [(name, f"\u201c{_cell(quote.sentence) if side_by_side else quote.sentence}\u201d [{quote.number}]"
             if (quote := quoted.get(key)) else NO_QUOTE) for key, name in documents.items()]
    rows += [(name, f"left out: {escaped(why)}" if why else "left out") for name, why in left_out]
    if side_by_side:
        return "\n".join(["| Document | What it says |", "| --- | --- |",
                          *(f"| {escaped(name)} | {said} |" for name, said in rows)])
    return "\n".join(f"- **{escaped(name)}**: {said}" for name, said in rows)


def _document(citation: Citation) -> str:
    return citation.document_id or citation.document


def _cell(text: str) -> str:
    """A sentence in a table's cell: a bar of its own cannot end the cell."""
    return text.replace("|", "\\|")


def lead_messages(question: str, quotes: Sequence[Quote]) -> list[dict[str, str]]:
    """The prompt of a quoted answer's lead: one sentence from the quotes alone, citing them."""
    listed = "\n".join(f"[{quote.number}] \u201c{quote.sentence}\u201d" for quote in quotes)
    return [{"role": "system", "content": LEAD_PROMPT},
            {"role": "user", "content": f"Quotes:\n{listed}\n\nQuestion: {question}"}]


def beyond(text: str, quotes: Sequence[Quote], question: str) -> set[str]:
    """What `text` says that neither the quotes nor the question hold: its words (as stems), and
    "not" for a negation the quotes lack (a stopword, which would let a sentence deny a quote)."""
    held = stems(question).union(*(stems(quote.sentence) for quote in quotes))
    novel = stems(_MARK.sub(" ", text)) - held
    if _negated(text) and not any(_negated(quote.sentence) for quote in quotes):
        novel.add("not")
    return novel


def _negated(text: str) -> bool:
    lowered = text.lower()
    return "n't" in lowered or "n\u2019t" in lowered or bool(_NEGATIONS & set(words(lowered)))


def _stem(word: str) -> str:
    """A word's first five letters: "delivers", "delivery" and "deliveries" alike, to choose a
    sentence by (never to search with)."""
    return word[:5]
