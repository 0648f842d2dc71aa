"""A user uploads a scanned PDF and a photographed page in the Documents page: the scan's pages
are read by OCR one by one in view, and both end ready in the library; with no LLM server behind
the page."""

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, open_app, settled
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
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Documents").click()
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
