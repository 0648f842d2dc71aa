"""The lead of a quoted answer (issue 39): one sentence above the quotes, written by a model the
citation gate judges to cite well, and kept only when every word of it is in the quotes or the
question and the citation check finds it in the quotes it cites, so that a quoted answer never
claims more than its quotes. Anything else (a new word or negation, a flagged or unmarked
sentence, the refusal, a server that fails) leaves the quotes alone. The citation check alone is
not enough: "… is the 15th, and payments are made in euros [1]." passes its overlap test."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace

from docchat.context.citing import Checker, citing
from docchat.context.quotes import Quote, beyond, lead_messages
from docchat.errors import GenerationStopped, LLMError
from docchat.ports import Gateway

# One sentence of at most SENTENCE_UNITS (79) units and its marks, with room to spare.
LEAD_TOKENS = 64


class LeadWriter:
    def __init__(self, gateway: Gateway, checker: Checker, *, model: str, constrains: bool) -> None:
        self._gateway = gateway
        self._checker = checker
        self.model = model
        self._constrains = constrains

    def lead(self, question: str, quotes: Sequence[Quote], stop: threading.Event) -> str | None:
        """The lead sentence for `quotes`, or None when the model's sentence is not kept."""
        numbers = [quote.number for quote in quotes]
        constraint = citing(numbers, sentences=1) if self._constrains else None
        try:
            generation = self._gateway.stream(lead_messages(question, quotes), max_tokens=LEAD_TOKENS, stop=stop,
                                              constraint=constraint)
            try:
                text = "".join(generation).strip()
            finally:
                generation.close()
        except GenerationStopped:
            raise  # Stop was pressed: the turn ends as stopped, not with the quotes alone
        except LLMError:
            return None  # the quotes answer alone
        return text if self._holds(text, quotes, question) else None

    def _holds(self, text: str, quotes: Sequence[Quote], question: str) -> bool:
        """Whether the quotes hold the sentence: it has no word (nor negation) that neither they
        nor the question have, cites only them, and the citation check flags none of it."""
        if not text or "\n" in text or beyond(text, quotes, question):
            return False
        grounding = self._checker(text, [replace(quote.passage, text=quote.sentence) for quote in quotes])
        return (grounding is not None and bool(grounding.cited) and not grounding.attributed
                and not grounding.flagged and set(grounding.cited) <= {quote.number for quote in quotes})
