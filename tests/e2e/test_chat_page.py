import re

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS

QUESTION = "What is the Determination Date in the 2024 trust agreement?"


def test_a_posted_message_is_still_there_after_a_browser_reload(app_url, page):
    page.goto(app_url)
    page.get_by_role("button", name="New conversation").click()
    page.wait_for_url("**/?c=*")

    chat_input = page.get_by_placeholder("Ask about your documents")
    chat_input.fill(QUESTION)
    chat_input.press("Enter")
    expect(page.get_by_test_id("stChatMessage").filter(has_text=QUESTION)).to_be_visible()
    expect(page.get_by_text("the LLM server is not running").first).to_be_visible()

    page.reload()
    expect(page.get_by_test_id("stChatMessage").filter(has_text=QUESTION)).to_be_visible()
    # The new thread took its title from the first message, in the sidebar too.
    expect(page.get_by_test_id("stSidebar").get_by_text("What is the Determination Date in the")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "chat_after_reload.png"), full_page=True)


def test_a_question_typed_in_the_page_gets_a_streamed_answer_from_the_real_server(live_app_url, page):
    page.goto(live_app_url)
    chat_input = page.get_by_placeholder("Ask about your documents")
    chat_input.fill("What is the capital of France?")
    chat_input.press("Enter")

    messages = page.get_by_test_id("stChatMessage")
    expect(messages).to_have_count(2, timeout=60_000)
    expect(messages.nth(1)).to_contain_text("Paris", timeout=60_000)
    expect(page.get_by_text("Token budget:")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "live_answer.png"), full_page=True)


def test_stop_ends_a_streaming_answer_and_keeps_what_arrived(live_app_url_long_answers, page):
    page.goto(live_app_url_long_answers)
    chat_input = page.get_by_placeholder("Ask about your documents")
    chat_input.fill("Write a long story about a lighthouse keeper and his cat.")
    chat_input.press("Enter")

    answer = page.get_by_test_id("stChatMessage").nth(1)
    # stMarkdown is the streamed text; the Stop button's label is a markdown container too.
    expect(answer.get_by_test_id("stMarkdown")).to_contain_text(re.compile(r"\w+ \w+"), timeout=60_000)
    page.get_by_role("button", name="Stop").click()

    expect(page.get_by_text("Interrupted:")).to_be_visible(timeout=30_000)
    # What had arrived before the click is kept and shown.
    kept = page.get_by_test_id("stChatMessage").nth(1).get_by_test_id("stMarkdown").first
    expect(kept).to_contain_text(re.compile(r"\w+ \w+"))
    expect(page.get_by_role("button", name="Retry the answer")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "stopped_answer.png"), full_page=True)
