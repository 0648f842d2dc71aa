import re

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, ask, ask_and_settle, open_app, settled

QUESTION = "What is the Determination Date in the 2024 trust agreement?"


def test_a_posted_message_is_still_there_after_a_browser_reload(app_url, page):
    open_app(page, app_url)
    page.get_by_role("button", name="New conversation").click()

    ask(page, QUESTION)
    page.wait_for_url("**/?c=*")  # stored with its first message
    expect(page.get_by_test_id("stChatMessage").filter(has_text=QUESTION)).to_be_visible()
    expect(page.get_by_text("the LLM server is not running").first).to_be_visible()
    settled(page)
    copies_seen = _most_messages_shown(page, holding="And the Payment Date?")
    # The chat box has the focus again: the next question is typed straight away.
    page.keyboard.type("And the Payment Date?")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("stChatMessage").filter(has_text="And the Payment Date?")).to_have_count(1)
    settled(page)
    # Shown once all along: not once as typed and again as stored while the page is drawn anew.
    assert copies_seen() == 1

    page.reload()
    expect(page.get_by_test_id("stChatMessage").filter(has_text=QUESTION)).to_be_visible()
    # The new thread took its title from the first message, in the sidebar too.
    expect(page.get_by_test_id("stSidebar").get_by_text("What is the Determination Date in the 2024…")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "chat_after_reload.png"), full_page=True)


def test_retry_answers_again_in_the_failed_answer_s_place_and_keeps_it_as_a_version(app_url, page):
    open_app(page, app_url)
    ask_and_settle(page, QUESTION)
    expect(page.get_by_text("the LLM server is not running").first).to_be_visible()
    most_shown = _most_messages_shown(page)

    page.get_by_role("button", name="Retry the answer").click()

    expect(page.get_by_text("2 / 2")).to_be_visible()  # failed again: still no server
    settled(page)
    expect(page.get_by_test_id("stChatMessage")).to_have_count(2)
    assert most_shown() == 2  # answered where the failed one was, never below it as a third


def _most_messages_shown(page, *, holding: str = ""):
    """Watches the page from now on; the returned call gives the most chat messages (holding
    that text) that were on the page at any one moment."""
    page.evaluate("""text => {
        window.mostCopies = 0;
        const count = () => [...document.querySelectorAll("[data-testid='stChatMessage']")]
            .filter(m => m.innerText.includes(text)).length;
        new MutationObserver(() => { window.mostCopies = Math.max(window.mostCopies, count()); })
            .observe(document.body, {childList: true, subtree: true, characterData: true});
    }""", holding)
    return lambda: page.evaluate("window.mostCopies")


def test_a_question_typed_in_the_page_gets_a_streamed_answer_from_the_real_server(live_app_url, page):
    open_app(page, live_app_url)
    ask(page, "What is the capital of France?")

    messages = page.get_by_test_id("stChatMessage")
    expect(messages).to_have_count(2, timeout=60_000)
    expect(messages.nth(1)).to_contain_text("Paris", timeout=60_000)
    expect(page.get_by_text("Token budget:")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "live_answer.png"), full_page=True)


def answer_under_way(page, url: str) -> None:
    """Asks for a long answer and waits until some of it is on the page."""
    open_app(page, url)
    ask(page, "Write a long story about a lighthouse keeper and his cat.")
    answer = page.get_by_test_id("stChatMessage").nth(1)
    # stMarkdown is the streamed text; the Stop button's label is a markdown container too, and
    # so is the caption saying what the turn does until its first word ("Reading the conversation…").
    streamed = answer.get_by_test_id("stMarkdown").filter(has_not=page.get_by_test_id("stCaptionContainer")).last
    expect(streamed).to_contain_text(re.compile(r"\w+ \w+"), timeout=60_000)


def test_stop_ends_a_streaming_answer_and_keeps_what_arrived(live_app_url_long_answers, page):
    answer_under_way(page, live_app_url_long_answers)

    page.get_by_role("button", name="Stop").click()

    expect(page.get_by_text("Interrupted: stopped before the end")).to_be_visible(timeout=30_000)
    # What had arrived before the click is kept and shown.
    kept = page.get_by_test_id("stChatMessage").nth(1).get_by_test_id("stMarkdown").first
    expect(kept).to_contain_text(re.compile(r"\w+ \w+"))
    expect(page.get_by_role("button", name="Retry the answer")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "stopped_answer.png"), full_page=True)


def test_a_reload_during_an_answer_says_so_not_that_somebody_stopped_it(live_app_url_long_answers, page):
    answer_under_way(page, live_app_url_long_answers)

    page.reload()

    expect(page.get_by_text("Interrupted: cut short: the page was reloaded or closed before the end")
           ).to_be_visible(timeout=30_000)
    expect(page.get_by_text("stopped before the end")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "reloaded_answer.png"), full_page=True)


def test_an_answer_written_in_another_window_grows_in_this_one_until_it_is_done(live_app_url_long_answers, page,
                                                                                  dark_page):
    open_app(page, live_app_url_long_answers)
    ask(page, "Write a long story about a lighthouse keeper and his cat.")
    page.wait_for_url("**/?c=*")
    # A second window on the same library, where the user opens that conversation.
    other = dark_page
    open_app(other, live_app_url_long_answers)
    other.get_by_test_id("stSidebar").get_by_text("Write a long story about a lighthouse").click()

    answer = other.get_by_test_id("stChatMessage").nth(1)
    expect(answer.get_by_text("Still being written…")).to_be_visible(timeout=30_000)
    expect(answer.get_by_test_id("stMarkdown").first).to_contain_text(re.compile(r"\w+ \w+ \w+"), timeout=60_000)
    other.screenshot(path=str(ARTIFACTS / "answer_from_another_window.png"), full_page=True)
    # Settled in the first window, it is shown as stored here too, with what can be done with it.
    expect(answer.get_by_text("Still being written…")).to_have_count(0, timeout=120_000)
    expect(answer.get_by_role("radio", name="Thumbs up")).to_be_visible()
    expect(answer.get_by_test_id("stMarkdown").first).to_contain_text(re.compile(r"\w+ \w+ \w+"))
    other.screenshot(path=str(ARTIFACTS / "answer_from_another_window_done.png"), full_page=True)


def test_a_follow_up_says_what_it_is_doing_until_its_first_word_and_every_answer_keeps_its_figures(
        live_app_url, page, dark_page):
    open_app(page, live_app_url)
    ask(page, "What is the capital of France?")
    messages = page.get_by_test_id("stChatMessage")
    expect(messages).to_have_count(2, timeout=60_000)
    expect(page.get_by_text("Token budget:")).to_be_visible(timeout=60_000)

    ask(page, "And which river runs through it?")
    # From the moment it is sent, the turn says what it is doing and can be stopped.
    answer = messages.nth(3)
    expect(answer.get_by_role("button", name="Stop")).to_be_visible(timeout=5_000)
    expect(answer.get_by_text(re.compile(
        "Reading the question|Searching your documents|Fitting the conversation|Waiting for the model"))).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "follow_up_waiting.png"), full_page=True)
    expect(answer.get_by_text("Token budget:")).to_be_visible(timeout=90_000)
    expect(answer.get_by_role("button", name="Stop")).to_have_count(0)
    messages.nth(1).get_by_role("radio", name="Thumbs up").click()
    expect(messages.nth(1).get_by_role("radio", name="Thumbs up")).to_be_checked()

    page.reload()
    expect(messages).to_have_count(4, timeout=30_000)
    expect(messages.nth(1).get_by_role("radio", name="Thumbs up")).to_be_checked()  # stored with the answer
    # The earlier answer keeps its figures one click away; the latest shows its meter.
    expect(messages.nth(1).get_by_text(re.compile(r"Budget: [\d,]+ of 8,192 tokens"))).to_be_visible()
    expect(messages.nth(3).get_by_text("Token budget:")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "answers_with_figures.png"), full_page=True)
    # The same conversation in a browser that prefers dark pages.
    open_app(dark_page, page.url)
    expect(dark_page.get_by_test_id("stChatMessage").nth(3).get_by_text("Token budget:")).to_be_visible()
    dark_page.screenshot(path=str(ARTIFACTS / "answers_dark.png"), full_page=True)


def test_a_message_too_long_for_the_window_is_kept_to_edit_and_nothing_is_stored(live_app_url, page):
    open_app(page, live_app_url)
    ask(page, "Please summarise this: " + "the tenant pays the rent on time " * 1_500)

    expect(page.get_by_text(re.compile("Not sent: this message is too long"))).to_be_visible(timeout=60_000)
    kept = page.get_by_label("Your message")
    expect(kept).to_have_value(re.compile(r"^Please summarise this: the tenant pays"))
    expect(page.get_by_test_id("stSidebar").get_by_text("No conversations yet.")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "too_long_kept.png"))

    kept.fill("What is the capital of France?")
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.get_by_test_id("stChatMessage").nth(1)).to_contain_text("Paris", timeout=90_000)
    expect(page.get_by_label("Your message")).to_have_count(0)


def test_an_answer_cut_at_the_length_limit_says_so_and_can_be_continued(live_app_url, page):
    open_app(page, live_app_url)
    ask(page, "Write a long story about a dragon who learns to bake bread.")

    answer = page.get_by_test_id("stChatMessage").nth(1)
    expect(answer.get_by_text("Cut at the answer length limit")).to_be_visible(timeout=90_000)
    before = answer.get_by_test_id("stMarkdown").first.inner_text()
    settled(page)
    most_shown = _most_messages_shown(page)
    page.get_by_role("button", name="Continue the answer").click()

    # Once the continuation is stored, the same answer reads on from where it was cut.
    expect(answer.get_by_test_id("stMarkdown").first).to_have_text(
        re.compile("^" + re.escape(before) + r"\s*\S"), timeout=90_000)
    expect(page.get_by_test_id("stChatMessage")).to_have_count(2)
    settled(page)
    # It went on in the same message: the cut answer was never shown twice, nor the rest apart.
    assert most_shown() == 2
    page.screenshot(path=str(ARTIFACTS / "continued_answer.png"), full_page=True)


def test_a_regenerated_answer_is_a_new_version_and_the_arrows_bring_back_the_first(live_app_url, page):
    open_app(page, live_app_url)
    ask(page, "What is the capital of France?")
    messages = page.get_by_test_id("stChatMessage")
    expect(messages.nth(1).get_by_text("Token budget:")).to_be_visible(timeout=90_000)
    first = messages.nth(1).get_by_test_id("stMarkdown").first.inner_text()
    settled(page)
    most_shown = _most_messages_shown(page)

    page.get_by_role("button", name="Regenerate").click()

    expect(page.get_by_text("2 / 2")).to_be_visible(timeout=90_000)
    expect(messages).to_have_count(2)
    # The new version was written where the first was, in its place: never a third message.
    assert most_shown() == 2
    page.get_by_role("button", name="‹", exact=True).click()
    expect(page.get_by_text("1 / 2")).to_be_visible()
    expect(messages.nth(1).get_by_test_id("stMarkdown").first).to_have_text(first)
    page.screenshot(path=str(ARTIFACTS / "answer_versions.png"), full_page=True)
