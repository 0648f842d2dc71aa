"""Quoted answers on the chat page (AppTest): the header's switch, and a question the documents
answer quoted from them with no LLM server running."""

from docchat.domain import AnswerForm
from docchat.domain.grounding import QUOTED_BY

HANDBOOK = (b"## Annual leave\n\nEvery employee has 25 days of annual leave a year. Leave is booked through the "
            b"HR portal.\n\n## Parental leave\n\nParental leave is 26 weeks, the first 13 of them on full pay.\n")


def test_the_header_s_switch_makes_a_conversation_quote_its_documents(chat_page, services):
    conversation = services.conversations.create("Leave")
    page = chat_page(conversation.id)
    page.session_state["header_documents"] = True
    page.run()

    page.toggle(key=f"header_quoted_answers_{conversation.id}").set_value(True).run()

    assert services.conversations.get(conversation.id).settings.quoted_answers is True
    assert services.conversations.get(conversation.id).settings.documents_only is None  # the other switch untouched
    assert any(c.value.startswith(":material/format_quote: Quoted answers") for c in chat_page(conversation.id).caption)


def test_a_question_the_documents_answer_is_quoted_without_any_llm_server(chat_page, services):
    services.ingestion.ingest("staff-handbook.md", HANDBOOK)
    services.index.close()  # the page's own services open the index (one client per folder)
    conversation = services.conversations.create("Leave")
    services.conversations.set_quoted_answers(conversation.id, True)
    page = chat_page(conversation.id)

    page.chat_input(key="chat_input").set_value("How many days of annual leave do I get?").run()

    question, answer = services.messages.history(conversation.id)
    assert (answer.facts.form, answer.facts.model) == (AnswerForm.QUOTED, QUOTED_BY)
    assert "Every employee has 25 days of annual leave a year." in answer.content
    shown = page.chat_message[1]
    assert "25 days of annual leave" in shown.markdown[0].value
    assert any("Quoted from your documents" in c.value for c in shown.caption)
    assert not page.error
