"""A reader sees what an answer cited and what docchat could not find in its passages: the
answer is checked by the real check (MiniLM through the services) and stored as a turn stores
it; no LLM server is needed."""


from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, open_app, settled

LEASE = (b"# Riverside Lease\n\n## Rent\n\nThe annual rent is GBP 62,000, exclusive of VAT, payable quarterly in "
         b"advance.\n\n## Repairs\n\nThe Tenant keeps the inside of the premises in good repair; the Landlord "
         b"repairs the roof and the structure.\n\n## Break\n\nThe Tenant may end this Lease on the fifth anniversary "
         b"by giving six months' written notice.\n")


def _checked_answer(services) -> None:
    services.ingestion.ingest("riverside-lease.md", LEASE)
    hits = services.retrieval.retrieve("rent repairs break", top_k=3)
    given = [hit.citation(n) for n, hit in enumerate(hits, start=1)]
    rent = next(c.number for c in given if "annual rent" in c.text)
    text = (f"The annual rent is GBP 64,000, payable quarterly in advance [{rent}]. "
            f"The Landlord also pays for a gardener every spring [{rent}].")
    conversation = services.conversations.create("Lease check")
    services.messages.append_message(conversation.id, "user", "What does the lease say about rent?")
    answer = services.messages.append_message(conversation.id, "assistant", text)
    with services.conversations._uow(write=True) as uow:
        uow.conversations.settle_message(answer.with_facts(citations=given,
                                                           grounding=services.chat.checker(text, given)))
        uow.commit()
    services.index.open().close()  # one process at a time: the page opens the index itself
    return rent


def test_the_page_marks_what_the_cited_passage_does_not_hold_and_lists_the_passages_only_given(seeded, app_url,
                                                                                               page):
    rent = _checked_answer(seeded)
    open_app(page, app_url)
    page.get_by_test_id("stSidebar").get_by_role("button", name="Lease check").click()

    expect(page.get_by_text("64,000 not found in the cited passages")).to_be_visible(timeout=30_000)
    expect(page.get_by_text(f"Not found in [{rent}]: “The Landlord also pays for a gardener")).to_be_visible()
    expect(page.get_by_text("Sources (1)")).to_be_visible()
    settled(page)
    page.get_by_text("Also given to the model (2)").click()
    expect(page.get_by_text("Passages the model was given that the answer does not cite.")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "checked_citations.png"), full_page=True)


def test_a_number_no_source_holds_is_marked_where_it_stands_in_the_answer(seeded, app_url, page):
    from dataclasses import replace

    from docchat.grounding.numbers import check_numbers

    seeded.ingestion.ingest("riverside-lease.md", LEASE)
    given = [hit.citation(n) for n, hit in enumerate(seeded.retrieval.retrieve("annual rent", top_k=1), start=1)]
    text = "The annual rent is GBP 62,000 [1], which comes to GBP 5,500 a month."
    conversation = seeded.conversations.create("Rent check")
    seeded.messages.append_message(conversation.id, "user", "What is the rent?")
    answer = seeded.messages.append_message(conversation.id, "assistant", text)
    numbers = check_numbers(text, sources=[c.text for c in given], question="What is the rent?")
    with seeded.conversations._uow(write=True) as uow:
        uow.conversations.settle_message(answer.with_facts(citations=given, grounding=replace(
            seeded.chat.checker(text, given), numbers=numbers)))
        uow.commit()
    seeded.index.open().close()  # one process at a time: the page opens the index itself
    open_app(page, app_url)
    page.get_by_test_id("stSidebar").get_by_role("button", name="Rent check").click()

    answer = page.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("(not in the sources)")).to_be_visible(timeout=30_000)
    expect(answer.get_by_text("Not in the sources: GBP 5,500 (1 of the 2 numbers the model wrote;")).to_be_visible()
    expect(answer.get_by_text("(not in the sources)")).to_have_count(1)  # 62,000 is the lease's own
    settled(page)
    page.screenshot(path=str(ARTIFACTS.parent.parent.parent / "docs" / "marked-number.png"), full_page=True)
