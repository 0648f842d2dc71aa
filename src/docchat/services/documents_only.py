"""docchat's own answer to a question the documents do not hold (issue 54).

When the evidence judgement finds nothing in the documents in scope (docchat.grounding.evidence),
docchat does not call the model: it replies "I could not find this in your documents", naming
the nearest passages it did find, which are the reply's sources, and the reply is stored like
any answer (it names DOCUMENTS_ONLY as its model). The model's own answer comes only when the
user asks for its words (docchat.services.writing), and a documents-only conversation never
has it. The judgement needs no LLM, so the reply comes even when no LLM server is running:
the question is prepared against a nominal window then, and only an answer that needs the
model fails for want of one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from docchat.context.pipeline import Prepared
from docchat.domain import Citation, Judgement
from docchat.domain.grounding import DOCUMENTS_ONLY
from docchat.domain.stated import escaped

NOT_FOUND_REPLY = "I could not find this in your documents."
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
    return prepared.evidence is None or not_found(prepared)


def not_found(prepared: Prepared) -> bool:
    """Whether the documents in scope were searched and judged not to hold the answer."""
    return prepared.evidence is not None and prepared.evidence.judgement is Judgement.NOT_FOUND


def offered(prepared: Prepared) -> list[Citation]:
    """The closest passages, numbered as they were ranked, that the reply lists as its sources."""
    return prepared.citations[:OFFERED]


def reply_text(offers: list[Citation]) -> str:
    """docchat's reply, naming the passages it offers (each cited by its mark, grouped by their
    document), so that a reader of the terminal or an export sees where docchat looked as well
    as one of the page."""
    if not offers:
        return NOT_FOUND_REPLY
    places: dict[str, list[str]] = {}
    for offer in offers:
        places.setdefault(offer.document, []).append(f"{escaped(offer.where)} [{offer.number}]".lstrip())
    named = [f"{escaped(document)} ({', '.join(where)})" for document, where in places.items()]
    listed = named[0] if len(named) == 1 else f"{'; '.join(named[:-1])}; and {named[-1]}"
    holds = "it does not hold" if len(offers) == 1 else "none of them holds"
    return (f"{NOT_FOUND_REPLY} The nearest passages docchat found are in {listed}, but {holds} "
            "the answer. They are listed under the sources, to look at yourself.")


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
