"""The chat pane (AppTest) says how an answer was written: quoted from the documents by docchat,
or by the model with a citation for every sentence; an answer in the model's own words says
nothing more."""

from docchat.domain import AnswerForm


def _written(services, form: AnswerForm | None, content: str) -> str:
    conversation = services.conversations.create("Annual leave")
    services.messages.append_message(conversation.id, "user", "Can I carry leave over to next year?")
    answer = services.messages.append_message(conversation.id, "assistant", content)
    with services.conversations._uow(write=True) as uow:
        uow.conversations.settle_message(answer.with_facts(model="docchat (quoted)", form=form))
        uow.commit()
    return conversation.id


QUOTE = "- \u201cUp to five days of unused leave may be carried over to the next year.\u201d [1]"


def test_a_quoted_answer_is_labelled_quoted_from_your_documents_after_a_reload_too(chat_page, services):
    page = chat_page(_written(services, AnswerForm.QUOTED, QUOTE))

    assert [c.value for c in page.chat_message[1].caption if "Quoted" in c.value] == [
        ":material/format_quote: Quoted from your documents."]
    assert "Up to five days of unused leave" in page.chat_message[1].markdown[0].value


def test_a_constrained_answer_says_every_sentence_carries_a_citation(chat_page, services):
    page = chat_page(_written(services, AnswerForm.CONSTRAINED, "Five days may be carried over [1]."))

    assert any("with a citation for every sentence" in c.value for c in page.chat_message[1].caption)


def test_an_answer_in_the_models_own_words_carries_no_label(chat_page, services):
    page = chat_page(_written(services, AnswerForm.FREE, "Five days may be carried over."))

    assert not [c for c in page.chat_message[1].caption if "Quoted" in c.value or "citation for every" in c.value]
