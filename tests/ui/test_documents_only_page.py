"""Documents only on the chat page (AppTest): the header's switch, and a question the documents do
not answer replied to by docchat itself, with no LLM server running."""

from docchat.domain import Judgement
from docchat.services.documents_only import NOT_FOUND_REPLY

KITCHEN = (b"## Roast chicken\n\nRoast a chicken at 200 degrees for twenty minutes per pound plus twenty minutes.\n\n"
           b"## Gravy\n\nPour off the fat, stir in a spoonful of flour, add hot stock and boil until it thickens.\n")


def test_the_header_s_switch_makes_a_conversation_answer_from_its_documents_only(chat_page, services):
    conversation = services.conversations.create("Cookery")
    page = chat_page(conversation.id)
    page.session_state["header_documents"] = True
    page.run()

    page.toggle(key=f"header_documents_only_{conversation.id}").set_value(True).run()

    assert services.conversations.get(conversation.id).settings.documents_only is True
    assert any(c.value.startswith(":material/lock: Documents only") for c in chat_page(conversation.id).caption)


def test_a_question_the_documents_do_not_answer_is_replied_to_without_any_llm_server(chat_page, services):
    services.ingestion.ingest("kitchen-notebook.md", KITCHEN)
    services.index.close()  # the page's own services open the index (one client per folder)
    conversation = services.conversations.create("Cookery")
    services.conversations.set_documents_only(conversation.id, True)
    page = chat_page(conversation.id)

    page.chat_input(key="chat_input").set_value("Who won the football World Cup in 1998?").run()

    question, answer = services.messages.history(conversation.id)
    assert answer.content.startswith(NOT_FOUND_REPLY)
    assert answer.facts.evidence.judgement is Judgement.NOT_FOUND
    assert page.chat_message[1].markdown[0].value.startswith(NOT_FOUND_REPLY)
    # No "model's own" note on docchat's own reply, and no failed answer for want of a server.
    assert not [w for w in page.warning if "model's own" in w.value]
    assert not page.error
