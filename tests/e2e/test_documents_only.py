"""A documents-only conversation in Chromium: switched on from the header, it answers a question
its documents do not hold itself ("I could not find this in your documents", with the closest
passages), with no LLM server running at all."""

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, ask, open_app, open_popover, settled

KITCHEN = (b"# Kitchen notebook\n\n## Roast chicken\n\nRoast a chicken at 200 degrees for twenty minutes per pound "
           b"plus twenty minutes.\n\n## Gravy\n\nPour off the fat, stir in a spoonful of flour, add hot stock and "
           b"boil until it thickens.\n")


def test_a_documents_only_conversation_says_what_its_documents_do_not_hold(seeded, app_url, page):
    seeded.ingestion.ingest("kitchen-notebook.md", KITCHEN)
    seeded.conversations.create("Cookery")
    seeded.index.open().close()  # one process at a time: the page opens the index itself
    open_app(page, app_url)
    page.get_by_test_id("stSidebar").get_by_role("button", name="Cookery").click()
    settled(page)

    body = open_popover(page, page.get_by_role("button", name="Documents"))
    body.get_by_text("Answer from these documents only").click()
    expect(page.get_by_text("Answers from its documents only.")).to_be_visible(timeout=30_000)
    settled(page)
    page.keyboard.press("Escape")
    settled(page)

    ask(page, "Who won the football World Cup in 1998?")
    expect(page.get_by_text("I could not find this in your documents.")).to_be_visible(timeout=60_000)
    settled(page)
    expect(page.get_by_text("Documents only: when your documents do not hold an answer")).to_be_visible()
    page.get_by_text("Sources (").first.click()
    expect(page.get_by_text("kitchen-notebook.md").first).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "documents_only_reply.png"), full_page=True)


def test_with_no_llm_server_regenerate_in_a_documents_only_conversation_gives_the_reply(seeded, app_url, page):
    seeded.ingestion.ingest("kitchen-notebook.md", KITCHEN)
    conversation = seeded.conversations.create("Football")
    seeded.messages.append_message(conversation.id, "user", "Who won the football World Cup in 1998?")
    seeded.messages.append_message(conversation.id, "assistant", "France won it, at home.")
    seeded.conversations.set_documents_only(conversation.id, True)
    seeded.index.open().close()
    open_app(page, app_url)
    page.get_by_test_id("stSidebar").get_by_role("button", name="Football").click()
    expect(page.get_by_text("France won it, at home.")).to_be_visible(timeout=30_000)
    settled(page)

    page.get_by_role("button", name="Regenerate").click()

    expect(page.get_by_text("I could not find this in your documents.")).to_be_visible(timeout=60_000)
    settled(page)
    expect(page.get_by_text("France won it, at home.")).to_have_count(0)  # kept as an earlier version
    page.screenshot(path=str(ARTIFACTS / "documents_only_regenerate_offline.png"), full_page=True)
