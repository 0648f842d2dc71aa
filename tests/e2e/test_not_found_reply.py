"""A question the documents do not hold, in Chromium over the real vLLM server (issue 54): in an
ordinary conversation docchat says so in its own words, naming the nearest passages, and asks
no model; "Ask the model anyway" gets the model's answer as a new version, labelled its own."""

from playwright.sync_api import expect

from tests.e2e.conftest import ask_and_settle, open_app, run_by_click, settled
from tests.e2e.test_documents_only import KITCHEN
from tests.e2e.test_stated_figures import DOCS


def test_docchat_says_what_the_documents_do_not_hold_and_the_model_answers_only_when_asked(seeded, live_app_url, page):
    seeded.ingestion.ingest("kitchen-notebook.md", KITCHEN)
    seeded.conversations.create("Cookery")
    seeded.index.open().close()  # one process at a time: the page opens the index itself
    open_app(page, live_app_url)
    run_by_click(page, page.get_by_test_id("stSidebar").get_by_role("button", name="Cookery"))

    ask_and_settle(page, "Who won the football World Cup in 1998?")

    answer = page.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("I could not find this in your documents. The nearest passages docchat found are "
                              "in kitchen-notebook.md")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("this answer is the model's own")).to_have_count(0)
    answer.get_by_text("Sources (").first.click()  # an expander opens in the browser: no run
    expect(answer.get_by_text("Roast chicken").first).to_be_visible()
    page.screenshot(path=str(DOCS / "not-found-reply.png"), full_page=True)

    run_by_click(page, page.get_by_role("button", name="Ask the model anyway"))
    settled(page)

    answer = page.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("Not found in your documents: this answer is the model's own.")).to_be_visible(
        timeout=120_000)
    expect(answer.get_by_text("I could not find this in your documents.")).to_have_count(0)
    expect(answer.get_by_text("Based on the provided", exact=False)).to_have_count(0)
    expect(page.get_by_role("button", name="Ask the model anyway")).to_have_count(0)
    expect(answer.get_by_text("2 / 2")).to_be_visible()  # docchat's reply kept as the earlier version
    page.screenshot(path=str(DOCS / "not-found-model-own.png"), full_page=True)
