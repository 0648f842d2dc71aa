"""A user uploads a supplier's mail on the Documents page: its readable attachments come in as
documents of their own, named after the mail, and the damaged one is refused in its own line."""

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, go_to, open_app, settled
from tests.integration.test_mail_attachments import quote


def test_a_mail_s_attachments_are_listed_under_it_and_in_the_library(app_url, page, tmp_path):
    path = tmp_path / "quote.eml"
    path.write_bytes(bytes(quote()))
    open_app(page, app_url)
    go_to(page, "Documents")
    page.locator("input[type=file]").set_input_files([str(path)])
    expect(page.get_by_role("button", name="Remove quote.eml")).to_be_visible()
    page.get_by_role("button", name="Ingest").click()

    expect(page.get_by_text("quote.eml: 1 chunk ready")).to_be_visible(timeout=120_000)
    expect(page.get_by_text("quote.eml › stock.xlsx: attached, 1 chunk ready")).to_be_visible()
    expect(page.get_by_text("quote.eml › delivery.md: attached, 1 chunk ready")).to_be_visible()
    expect(page.get_by_text('attached to quote.eml: "terms.docx" is not a readable Word document (.docx)')
           ).to_be_visible()
    expect(page.get_by_text("Library (3)")).to_be_visible()
    settled(page)
    page.screenshot(path=str(ARTIFACTS / "mail_attachments.png"), full_page=True)

    # Deleting the mail says its attachments go too, and they do.
    # The mail's card: the nearest block around its name that holds a Delete button.
    mail_card = page.locator("strong").get_by_text("quote.eml", exact=True).locator(
        "xpath=ancestor::div[.//button[normalize-space()='Delete']][1]")
    mail_card.get_by_role("button", name="Delete").click()
    expect(page.get_by_text("Delete “quote.eml”? It is removed, with its 2 attachments, from the library")
           ).to_be_visible()
    settled(page)
    page.get_by_role("button", name="Yes, delete").click()
    expect(page.get_by_text("No documents yet.")).to_be_visible(timeout=30_000)
