"""Follow-up retrieval: the question alone and with the previous question, fused; citations lift."""

from __future__ import annotations

from dataclasses import replace

from docchat.context.followup import retrieve_follow_up
from docchat.domain import ChunkRecord
from docchat.domain import Retrieved

TRUST = "harbour-trust-agreement.md"
HANDBOOK = "staff-handbook.md"


def passage(label: str, document: str = TRUST) -> Retrieved:
    chunk = ChunkRecord(id=label.lower().replace(" ", "-"), document_id=document, position=0, label=label,
                        page=None, text=f"{label}: ...", token_count=12)
    return Retrieved(chunk, document, 0.0)


DETERMINATION_DATE = passage("Determination Date")
DETERMINATION_ON_A_WEEKEND = passage("Determination Date adjustment")
PAYMENT_DATE = passage("Payment Date")
PAYMENT_ON_A_WEEKEND = passage("Payment Date adjustment")
HOLIDAYS_ON_A_WEEKEND = passage("Public holidays on a weekend", HANDBOOK)
WORKING_HOURS = passage("Working hours", HANDBOOK)
REPAYMENT_DATE = passage("Repayment Date", "northbank-loan-facility.md")


class ScriptedSearch:
    """A library that ranks the passages scripted for each query; it records what it was asked."""

    def __init__(self, rankings: dict[str, list[Retrieved]]) -> None:
        self._rankings = rankings
        self.queries: list[str] = []

    def __call__(self, query: str) -> list[Retrieved]:
        self.queries.append(query)
        return list(self._rankings.get(query, []))


def labels(found: list[Retrieved]) -> list[str]:
    return [hit.chunk.label for hit in found]


def test_without_earlier_questions_the_ranking_is_the_question_alone():
    own = [PAYMENT_DATE, PAYMENT_ON_A_WEEKEND, DETERMINATION_DATE]
    search = ScriptedSearch({"What is the Payment Date?": own})

    found = retrieve_follow_up(search, "What is the Payment Date?", [])

    assert found == own
    assert search.queries == ["What is the Payment Date?"]


def test_an_elliptical_follow_up_ranks_the_previous_topics_passage_first():
    search = ScriptedSearch({
        # Alone, "it" means nothing: every weekend rule of the library, the handbook's first.
        "What happens if it falls on a weekend?":
            [HOLIDAYS_ON_A_WEEKEND, DETERMINATION_ON_A_WEEKEND, PAYMENT_ON_A_WEEKEND, WORKING_HOURS],
        "What happens if it falls on a weekend? When is the Determination Date?":
            [DETERMINATION_ON_A_WEEKEND, DETERMINATION_DATE, HOLIDAYS_ON_A_WEEKEND, PAYMENT_ON_A_WEEKEND],
    })

    found = retrieve_follow_up(search, "What happens if it falls on a weekend?",
                               ["How are fees calculated?", "When is the Determination Date?"])

    assert labels(found)[0] == "Determination Date adjustment"
    assert len(found) == 4


def test_a_self_contained_topic_switch_keeps_its_own_best_passage_first():
    # The rankings MiniLM and BM25 give these two queries over the bench's library.
    search = ScriptedSearch({
        "What is the Payment Date?": [PAYMENT_DATE, PAYMENT_ON_A_WEEKEND, REPAYMENT_DATE, DETERMINATION_DATE],
        "What is the Payment Date? When is the Determination Date?":
            [DETERMINATION_DATE, PAYMENT_DATE, PAYMENT_ON_A_WEEKEND, DETERMINATION_ON_A_WEEKEND],
    })

    found = retrieve_follow_up(search, "What is the Payment Date?", ["When is the Determination Date?"],
                               cited_chunk_ids={DETERMINATION_DATE.chunk.id, DETERMINATION_ON_A_WEEKEND.chunk.id})

    assert labels(found)[0] == "Payment Date"


def test_a_cited_passage_wins_a_close_call_but_an_uncited_one_is_never_forced_in():
    search = ScriptedSearch({
        "And if it is a public holiday?": [HOLIDAYS_ON_A_WEEKEND, PAYMENT_ON_A_WEEKEND],
        "And if it is a public holiday? What is the Payment Date?": [PAYMENT_ON_A_WEEKEND, HOLIDAYS_ON_A_WEEKEND],
    })
    question, earlier = "And if it is a public holiday?", ["What is the Payment Date?"]

    uncited = retrieve_follow_up(search, question, earlier)
    # The previous answer also cited the Payment Date itself, which neither search finds now.
    cited = retrieve_follow_up(search, question, earlier,
                               cited_chunk_ids={PAYMENT_ON_A_WEEKEND.chunk.id, PAYMENT_DATE.chunk.id})

    assert labels(uncited) == ["Public holidays on a weekend", "Payment Date adjustment"]
    assert labels(cited) == ["Payment Date adjustment", "Public holidays on a weekend"]


def test_the_fused_list_is_as_long_as_the_questions_own_ranking():
    search = ScriptedSearch({
        "Is it paid?": [WORKING_HOURS, PAYMENT_DATE],
        "Is it paid? What are the Trustee's fees?": [PAYMENT_DATE, DETERMINATION_DATE, PAYMENT_ON_A_WEEKEND],
    })

    found = retrieve_follow_up(search, "Is it paid?", ["What are the Trustee's fees?"])

    assert labels(found) == ["Payment Date", "Working hours"]


def test_a_follow_up_s_passage_keeps_the_closer_similarity_of_its_two_readings():
    review = replace(passage("Rent review", "riverside-lease.md"), similarity=0.2, coverage=0.0)
    joint_review = replace(review, similarity=0.61, coverage=0.5)

    def retrieve(query: str):
        return [joint_review] if "rent" in query else [review]

    [ranked] = retrieve_follow_up(retrieve, "Can it go up?", ["When is the rent due under the lease?"])
    assert (ranked.similarity, ranked.coverage) == (0.61, 0.5)
