"""A user uploads a scanned PDF and a photographed page in the Documents page: the scan's pages
are read by OCR one by one in view, and both end ready in the library; a source cited on a
scanned page opens as the scan with the cited words marked. No LLM server behind the page."""


from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, go_to, open_app, settled
from tests.integration.test_parsing_scans import DEED, MANIFEST, TONNAGE
from tests.scanned_files import encoded, page_image, scanned_pdf


def _upload(page, path) -> None:
    settled(page)  # a file chosen while the page still runs is lost when the uploader is drawn anew
    chooser = page.locator("input[type=file]")
    chooser.set_input_files([])
    chooser.set_input_files([str(path)])
    expect(page.get_by_role("button", name=f"Remove {path.name}")).to_be_visible()
    page.get_by_role("button", name="Ingest").click()


def test_a_scanned_pdf_is_read_page_by_page_in_view_and_a_photo_of_a_page_is_ready(app_url, page, tmp_path):
    scan = tmp_path / "shipping-scan.pdf"
    scan.write_bytes(scanned_pdf(TONNAGE, MANIFEST, DEED))
    photo = tmp_path / "whiteboard.png"
    photo.write_bytes(encoded(page_image(MANIFEST), "PNG"))
    open_app(page, app_url)
    go_to(page, "Documents")
    expect(page.get_by_text("No documents yet.")).to_be_visible()

    _upload(page, scan)
    progress = page.get_by_test_id("stProgress")
    expect(progress).to_contain_text("shipping-scan.pdf: reading page", timeout=60_000)
    expect(progress).to_contain_text("of 3 (OCR)")
    page.screenshot(path=str(ARTIFACTS / "documents_scan_reading.png"), full_page=True)
    expect(page.get_by_text("shipping-scan.pdf:").filter(has_text="ready")).to_be_visible(timeout=120_000)
    expect(page.get_by_text("PDF · ").filter(has_text="3 pages")).to_be_visible()

    page.get_by_role("button", name="Remove shipping-scan.pdf").click()
    _upload(page, photo)
    expect(page.get_by_text("whiteboard.png:").filter(has_text="ready")).to_be_visible(timeout=120_000)
    expect(page.get_by_text("Library (2)")).to_be_visible()
    expect(page.get_by_text("IMAGE · ").filter(has_text="1 page")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "documents_scan_ready.png"), full_page=True)


def test_a_cited_scanned_page_opens_as_the_scan_with_the_cited_words_marked(seeded, app_url, page):
    seeded.ingestion.ingest("shipping-scan.pdf", scanned_pdf(TONNAGE, MANIFEST, DEED))
    hit = seeded.retrieval.retrieve("Who supplied the anchor chain?", top_k=1)[0]
    conversation = seeded.conversations.create("Shipping")
    seeded.messages.append_message(conversation.id, "user", "Who supplied the anchor chain?")
    answer = seeded.messages.append_message(conversation.id, "assistant", "Harbour Forge [1].")
    with seeded.conversations._uow(write=True) as uow:  # stored as the pipeline stores an answer
        uow.conversations.settle_message(answer.with_facts(citations=[hit.citation(1)]))
        uow.commit()
    seeded.index.open().close()  # one process at a time: the page opens the index itself
    open_app(page, app_url)
    page.get_by_test_id("stSidebar").get_by_role("button", name="Shipping").click()

    with page.context.expect_page() as opened:
        page.get_by_role("link", name="[1]").click()
    source = opened.value
    dialog = source.get_by_role("dialog")

    expect(dialog.get_by_text("Page 2 of 3; the passage is marked in yellow")).to_be_visible(timeout=30_000)
    expect(dialog.get_by_role("img")).to_be_visible()
    source.screenshot(path=str(ARTIFACTS / "source_scanned_page.png"))
