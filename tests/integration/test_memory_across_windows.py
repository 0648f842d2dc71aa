"""A conversation open in two windows (two servers on one database): what the model is sent
follows what the conversation shows now, whichever window changed it."""

from __future__ import annotations

from docchat.bootstrap import build_services
from docchat.config import Settings

from tests.unit.fakes import FakeGateway, WordCounter


def window(data_dir):
    """One app instance, with its own memory of each conversation, as a second server has."""
    counter = WordCounter()
    gateway = FakeGateway(counter=counter)
    return build_services(Settings(data_dir=data_dir), gateway=gateway, counter=counter, contact_llm=False), gateway


def sent(gateway) -> list[str]:
    return [m["content"] for m in gateway.requests[-1][0] if m["role"] != "system"]


def test_a_version_chosen_in_another_window_is_what_the_next_question_follows(data_dir):
    first, first_llm = window(data_dir)
    first_llm.enqueue(["The Determination Date is the 15th."])
    first_llm.enqueue(["It is the 15th day of each month (clause 4.2)."])
    asked = first.chat.answer(None, "When is the Determination Date?")
    asked.text()
    again = first.chat.retry(asked.conversation_id)
    again.text()
    first.chat.answer(asked.conversation_id, "And the Payment Date?").text()  # first's memory is warm
    second, _ = window(data_dir)

    second.messages.show_version(asked.conversation_id, asked.answer.id)
    first.chat.answer(asked.conversation_id, "Which clause says so?").text()

    assert sent(first_llm) == ["When is the Determination Date?", "The Determination Date is the 15th.",
                               "Which clause says so?"]


def test_a_question_edited_in_another_window_is_what_the_next_question_follows(data_dir):
    first, first_llm = window(data_dir)
    first_llm.enqueue(["The 15th."])
    asked = first.chat.answer(None, "When is the Determination Date?")
    asked.text()
    first.chat.answer(asked.conversation_id, "And the Payment Date?").text()
    second, second_llm = window(data_dir)
    second_llm.enqueue(["Two Business Days after the Determination Date."])

    second.chat.edit(asked.conversation_id, asked.question.id, "When is the Payment Date?").text()
    first.chat.answer(asked.conversation_id, "Which clause says so?").text()

    assert sent(first_llm) == ["When is the Payment Date?", "Two Business Days after the Determination Date.",
                               "Which clause says so?"]
