"""A question about an ingested document is answered with a citation to the right page."""

from docchat.domain import Status

from tests.integration.test_documents import trust_pdf


def test_a_question_about_an_ingested_pdf_is_answered_citing_the_right_page(live_services):
    document = live_services.documents.ingest("Harbour Street Trust.pdf", trust_pdf())

    turn = live_services.chat.answer(None, "When is the Determination Date?")
    turn.text()

    assert turn.answer.status is Status.COMPLETE and turn.answer.content
    first = turn.answer.citations[0]
    assert (first["number"], first["document"], first["where"]) == (1, "Harbour Street Trust.pdf", "page 2")
    # The model was given the passages, numbered, before the question, and they are stored as sent.
    question = live_services.conversations.history(turn.conversation_id)[0]
    assert question.content == "When is the Determination Date?"
    assert question.sent_content.startswith("Context:\n[1] Harbour Street Trust.pdf, page 2:")
    assert turn.usage["prompt_tokens"] == turn.budget.prompt
    uses = live_services.documents.usage(document.id)
    assert [u.conversation_id for u in uses] == [turn.conversation_id]
