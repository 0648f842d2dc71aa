"""Documents only: a conversation that answers from its documents or not at all.

When the evidence judgement finds nothing in the documents in scope (docchat.grounding.evidence),
such a conversation does not call the model: docchat replies "I could not find this in your
documents", with the closest passages as its sources, and the reply is stored like any answer
(it names DOCUMENTS_ONLY as its model). The judgement needs no LLM, so the reply comes even
when no LLM server is running: the question is prepared against a nominal window then, and
only an answer that needs the model fails for want of one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from docchat.context.pipeline import Prepared
from docchat.domain import Citation, Judgement
from docchat.domain.grounding import DOCUMENTS_ONLY

NOT_FOUND_REPLY = "I could not find this in your documents."
CLOSEST_OFFERED = "The closest passages are listed under Sources, if you want to look yourself."
# The closest passages a reply offers.
OFFERED = 3
# The window a question is prepared against when no LLM server says its own: enough for the
# passages a reply offers; a question that then needs the model fails as it did before.
NOMINAL_WINDOW = 8_192


@dataclass
class NominalServer:
    """What the pipeline plans against while no LLM server answers (ServerInfo's shape)."""

    base_url: str = ""
    model: str = DOCUMENTS_ONLY
    max_model_len: int = NOMINAL_WINDOW
    root: str | None = None
    models: tuple[str, ...] = ()
    window_source: str = "assumed"
    window_note: str = "no LLM server answers"
    server: str = "no server"
    reports_prefix_cache: bool = False
    continues_answers: bool = False
    sampling_options: tuple[str, ...] = ()
    constrains: bool = False


def refuses(prepared: Prepared) -> bool:
    """Whether a documents-only conversation answers this question itself: nothing was found
    (or there was nothing in scope to search)."""
    return prepared.evidence is None or prepared.evidence.judgement is Judgement.NOT_FOUND


def offered(prepared: Prepared) -> list[Citation]:
    """The closest passages, numbered as they were ranked, that the reply lists as its sources."""
    return prepared.citations[:OFFERED]


def reply_text(offers: list[Citation]) -> str:
    return f"{NOT_FOUND_REPLY} {CLOSEST_OFFERED}" if offers else NOT_FOUND_REPLY


class Reply:
    """The reply as a generation (the Generation port's shape): one piece, no model asked."""

    finish_reason: str | None = "stop"
    usage: dict[str, Any] | None = None

    def __init__(self, text: str, *, model: str = DOCUMENTS_ONLY):
        self._text = text
        self.model = model

    def __iter__(self) -> Iterator[str]:
        yield self._text

    def close(self) -> None:
        pass
