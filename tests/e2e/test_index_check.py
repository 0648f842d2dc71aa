"""A user whose library lost a vector (a passage no longer found by meaning) sees it said on the
Documents page, checks the index, and repairs it there."""

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, go_to, open_app, settled

NOTES = b"""# Bread

Knead the dough for ten minutes, then let it rise for an hour in a warm kitchen.

# Soup

Simmer the leeks and potatoes for twenty minutes, then blend until smooth.
"""


def test_a_lost_vector_is_found_by_the_check_and_mended_by_repair(seeded, app_url, page):
    seeded.ingestion.ingest("kitchen.md", NOTES)
    index = seeded.index.open()
    lost = seeded.retrieval.whole(None, max_tokens=10_000)[0].chunk
    index.delete_chunks([lost.id])
    index.close()  # one process at a time: the page opens the index itself

    open_app(page, app_url)
    go_to(page, "Documents")
    expect(page.get_by_text("The index holds 1 vector for 2 chunks")).to_be_visible()
    settled(page)
    page.get_by_role("button", name="Check the index").click()

    expect(page.get_by_text("Some passages cannot be found: 1 chunk without a vector (not found by meaning).")
           ).to_be_visible(timeout=60_000)
    settled(page)
    page.screenshot(path=str(ARTIFACTS / "index_check_found.png"), full_page=True)
    page.get_by_role("button", name="Repair").click()

    expect(page.get_by_text("Repaired: 1 vector embedded again, 0 stray vectors dropped.")).to_be_visible(
        timeout=120_000)
    expect(page.get_by_text("2 chunks, 2 vectors and the keyword index agree.")).to_be_visible()
    expect(page.get_by_text("The index holds")).to_have_count(0)
    settled(page)
    page.screenshot(path=str(ARTIFACTS / "index_check_repaired.png"), full_page=True)
