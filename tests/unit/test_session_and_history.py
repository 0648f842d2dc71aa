import pytest

from docchat.context.session import term_asked_about, updated
from docchat.domain import Role, SessionMemory
from docchat.errors import InvalidInput
from docchat.services.stateless import parse_history


@pytest.mark.parametrize("question, term", [
    ("What is the Determination Date?", "Determination Date"),
    ("Who is the Servicer?", "Servicer"),
    ("What does Business Day mean?", "Business Day"),
    ("And what is it?", None),
    ("How do I file my taxes?", None),
])
def test_a_definition_question_names_the_term_it_resolves(question, term):
    assert term_asked_about(question) == term


def test_a_complete_exchange_records_the_term_with_a_short_snippet_and_counts_the_turn():
    session = updated(SessionMemory(), question="What is the Determination Date?",
                      answer="The Determination Date is the 15th calendar day of each month. " * 10)

    assert list(session.resolved_terms) == ["Determination Date"]
    assert len(session.resolved_terms["Determination Date"]) <= 160
    assert session.turns == 1
    assert updated(session, question="Thanks!", answer="You're welcome.").turns == 2


def test_the_documents_an_answer_cited_are_remembered_once_each_in_order():
    session = updated(SessionMemory(active_documents=("d1",)), question="Compare them.", answer="See [1] and [2].",
                      documents=["d2", "d1", "d2"], sections=["Trust: page 2"])

    assert session.active_documents == ("d1", "d2")
    assert session.sections_seen == ("Trust: page 2",)


def test_caller_history_with_known_roles_and_text_is_accepted():
    assert parse_history([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]) == [
        (Role.USER, "Hi"), (Role.ASSISTANT, "Hello")]


@pytest.mark.parametrize("history, reason", [
    ({"role": "user"}, "must be a list"),
    ([{"role": "robot", "content": "beep"}], "role must be system, user or assistant"),
    ([{"role": "user", "content": 42}], "content must be a string"),
    ([{"role": "user"}], "exactly 'role' and 'content'"),
    ([{"role": "user", "content": "hi", "name": "Ada"}], "exactly 'role' and 'content'"),
    (["hello"], "exactly 'role' and 'content'"),
])
def test_invalid_caller_history_is_refused_with_a_clear_reason(history, reason):
    with pytest.raises(InvalidInput, match=reason):
        parse_history(history)
