"""Follow-ups through the real retrieval (SQLite FTS5, MiniLM, Qdrant Edge), over the
library of `docchat bench followups`: history finds the previous topic; a topic switch keeps its own."""

from __future__ import annotations

import pytest

from docchat.context.followup import retrieve_follow_up
from docchat_bench.followups import DOCUMENTS, markdown


@pytest.fixture
def search(library):
    for name, sections in DOCUMENTS.items():
        library.ingestion.ingest(name, markdown(sections))
    return lambda query: library.retrieval.retrieve(query, top_k=4)


def follow_up(search, previous: str, question: str) -> list[str]:
    """Section labels for `question` asked after `previous`, whose passages the answer cited."""
    cited = {hit.chunk.id for hit in search(previous)}
    return [hit.chunk.label for hit in retrieve_follow_up(search, question, [previous], cited)]


def first_label(search, question: str) -> str:
    return search(question)[0].chunk.label


@pytest.mark.parametrize(("previous", "question", "answer", "alone"), [
    ("What fees does the Trustee charge?", "When are they paid?", "Trustee fees", "Payment Date"),
    ("What about a leg of lamb?", "At what temperature?", "Roast lamb", "Roast chicken"),
])
def test_an_elliptical_follow_up_finds_the_previous_topics_section_first(search, previous, question, answer, alone):
    assert first_label(search, question) == alone, "premise: the question alone finds another section"

    assert follow_up(search, previous, question)[0] == answer


def test_a_follow_up_that_switches_topic_keeps_its_own_section_first(search):
    assert follow_up(search, "When are they paid?", "What is the Reserve Account for?")[0] == "Reserve Account"
