"""A reader checks an answer's sources: the [n] in the answer opens the cited PDF page with
the passage marked; the source list opens a Markdown section with the passage flagged and
offers the original file. No LLM server is needed: the answer is stored as the pipeline
stores one."""


from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, open_app, run_by_click, settled
from tests.integration.test_documents import trust_pdf

LEASE = (b"# Lease\n\n## Break clause\n\nThe tenant may end the lease on the fifth anniversary with six "
         b"months' notice.\n\nNotice must be given in writing to the landlord.\n")


def _cited_answer(services) -> None:
    services.ingestion.ingest("Harbour Street Trust.pdf", trust_pdf())
    services.ingestion.ingest("lease.md", LEASE)
    trust = services.retrieval.retrieve("When is the Determination Date?", top_k=1)[0]
    lease = services.retrieval.retrieve("When can the tenant end the lease?", top_k=1)[0]
    conversation = services.conversations.create("Trust and lease")
    services.messages.append_message(conversation.id, "user", "When is the Determination Date?")
    answer = services.messages.append_message(
        conversation.id, "assistant", "The 15th calendar day of each month [1]; the lease can end early [2].")
    with services.conversations._uow(write=True) as uow:
        uow.conversations.settle_message(answer.with_facts(citations=[trust.citation(1), lease.citation(2)]))
        uow.commit()
    services.index.close()  # the index is one process's at a time: the page opens it itself


def test_an_answer_s_marks_and_sources_open_the_cited_passage_in_its_document(seeded, app_url, page):
    _cited_answer(seeded)
    open_app(page, app_url)
    run_by_click(page, page.get_by_test_id("stSidebar").get_by_role("button", name="Trust and lease"))

    with page.context.expect_page() as opened:
        page.get_by_role("link", name="[1]").click()
    source = opened.value
    dialog = source.get_by_role("dialog")
    expect(dialog.get_by_text("Page 2 of 3; the passage is marked in yellow")).to_be_visible(timeout=30_000)
    expect(dialog.get_by_role("img")).to_be_visible()
    source.screenshot(path=str(ARTIFACTS / "source_pdf_page.png"))

    # A button clicked while the page's run is still under way can be drawn anew when the run
    # ends, and the click is lost: in a fresh clone under load this dialog never opened.
    settled(page)
    page.get_by_text("Sources (2)").click()
    run_by_click(page, page.get_by_role("button", name="Open the source").nth(1))
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_text("The tenant may end the lease on the fifth anniversary")).to_be_visible()
    expect(dialog.get_by_role("button", name="Download lease.md")).to_be_visible()
    # The section's heading reads as a title, not as the Markdown that wrote it.
    expect(dialog.locator("strong", has_text="Break clause")).to_be_visible()
    expect(dialog.get_by_text("## Break clause")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "source_section.png"))
