"""The chat pane (AppTest) marks an answer given on weak or no evidence, after a reload too."""


from docchat.domain import EvidenceStrength, Judgement


def _judged(services, judgement: Judgement, score: float) -> str:
    conversation = services.conversations.create("Roasting times")
    services.messages.append_message(conversation.id, "user", "How long does a turkey roast for?")
    answer = services.messages.append_message(conversation.id, "assistant", "About three hours.")
    with services.conversations._uow(write=True) as uow:
        uow.conversations.settle_message(answer.with_facts(model="qwen", evidence=EvidenceStrength(judgement, score)))
        uow.commit()
    return conversation.id


def test_an_answer_the_documents_do_not_hold_is_marked_as_the_model_s_own(chat_page, services):
    page = chat_page(_judged(services, Judgement.NOT_FOUND, 0.31))

    [note] = [w.value for w in page.warning if "Not found" in w.value]
    assert note == "Not found in your documents: this answer is the model's own. (evidence score 0.31)"
    assert page.chat_message[1].markdown[0].value == "About three hours."


def test_an_answer_on_weak_evidence_carries_a_quiet_note(chat_page, services):
    page = chat_page(_judged(services, Judgement.WEAK, 0.6))

    assert any("Weak evidence in your documents" in c.value for c in page.caption)
    assert not [w for w in page.warning if "Not found" in w.value]


def test_an_answer_found_in_the_documents_carries_no_note(chat_page, services):
    page = chat_page(_judged(services, Judgement.FOUND, 0.9))

    assert not [c for c in page.caption if "in your documents" in c.value]
    assert not [w for w in page.warning if "in your documents" in w.value]
