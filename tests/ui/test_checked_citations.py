"""An answer's sources on the chat page (AppTest): what it cited under Sources, what it was only
given apart, and the citation check's marks, all read back from the store after a reload."""


from docchat.grounding.citation_check import check
from docchat.domain import Citation

PASSAGES = {
    1: ("riverside-lease.md", "Rent", "The annual rent is GBP 62,000, exclusive of VAT, payable quarterly in advance."),
    2: ("riverside-lease.md", "Repairs", "The Tenant keeps the inside of the premises in good repair."),
    3: ("harbour-trust.md", "Trustee fees", "The Trustee is paid an annual fee of GBP 40,000 in four instalments."),
}


def _answer(services, text: str) -> str:
    """A conversation whose one answer was given the three passages and checked, as the turn does."""
    conversation = services.conversations.create("Lease questions")
    services.messages.append_message(conversation.id, "user", "What do I pay?")
    answer = services.messages.append_message(conversation.id, "assistant", text)
    given = [Citation(number=n, document=doc, where=where, text=passage) for n, (doc, where, passage) in PASSAGES.items()]
    grounding = check(text, {c.number: c.text for c in given}, None)
    with services.conversations._uow(write=True) as uow:
        uow.conversations.settle_message(answer.with_facts(citations=given, grounding=grounding))
        uow.commit()
    return conversation.id


def test_sources_list_what_the_answer_cited_in_its_order_and_the_rest_apart(chat_page, services):
    conversation_id = _answer(services, "The Trustee is paid GBP 40,000 a year [3]. The annual rent is "
                                        "GBP 62,000 [1].")

    page = chat_page(conversation_id)

    labels = [e.label for e in page.expander]
    assert "Sources (2)" in labels and "Also given to the model (1)" in labels
    [sources] = [e for e in page.expander if e.label == "Sources (2)"]
    assert [m.value for m in sources.markdown if m.value.startswith("**[")] == [
        "**[3] harbour-trust.md**, Trustee fees", "**[1] riverside-lease.md**, Rent"]
    [given] = [e for e in page.expander if e.label.startswith("Also given")]
    assert [m.value for m in given.markdown if m.value.startswith("**[")] == ["**[2] riverside-lease.md**, Repairs"]
    assert not [c for c in page.caption if "not found" in c.value.lower()]


def test_a_sentence_its_passage_does_not_hold_and_a_wrong_number_are_marked_under_the_answer(chat_page, services):
    conversation_id = _answer(services, "The annual rent is GBP 64,000 [1]. The Landlord repaints the building "
                                        "every winter [2].")

    page = chat_page(conversation_id)

    marks = [c.value for c in page.caption if c.value.startswith(":material/rule:")]
    assert marks == [":material/rule: 64,000 not found in the cited passages: “The annual rent is GBP 64,000 \\[1\\].”",
                     ":material/rule: Not found in \\[2\\]: “The Landlord repaints the building every winter \\[2\\].”"]


def test_an_answer_without_marks_shows_the_sources_docchat_attributed_and_marks_what_none_holds(chat_page, services):
    conversation_id = _answer(services, "The Trustee is paid an annual fee of GBP 40,000 in four instalments. "
                                        "The tenant may keep a dog in the flat.")

    page = chat_page(conversation_id)

    assert "Sources (1), attributed by docchat" in [e.label for e in page.expander]
    assert any(c.value == ":material/rule: Unsupported\\: no passage given holds this: “The tenant may keep a dog in "
               "the flat.”" for c in page.caption)
