"""One conversation open in two browser tabs of one browser: a question from each is stored, in
the order they were sent, and either tab shows both once it runs again. No LLM server is needed:
a question is stored before the model is asked, and shown with the error when it cannot be."""

from playwright.sync_api import expect

from docchat.domain import Role
from tests.e2e.conftest import ARTIFACTS, ask, new_context, open_app, settled

TITLE = "Lease renewal"
SIGNED = "Who signed the lease?"
FROM_FIRST_TAB = "When can the tenant end the lease?"
FROM_SECOND_TAB = "How much notice does the landlord need?"


def _two_tabs_on_one_thread(seeded, app_url, browser):
    """A thread with one exchange, opened in two tabs the way a user opens it: the app, then a
    click on the thread in the sidebar."""
    conversation = seeded.conversations.create(TITLE)
    seeded.messages.append_message(conversation.id, "user", SIGNED)
    seeded.messages.append_message(conversation.id, "assistant", "Harbour Street Lettings and Ms Okafor.")
    context = new_context(browser)
    tabs = context.new_page(), context.new_page()
    for tab in tabs:
        open_app(tab, app_url)
        _open_thread(tab)
    return conversation.id, context, tabs


def _open_thread(page) -> None:
    page.get_by_test_id("stSidebar").get_by_role("button", name=TITLE).click()
    expect(page.get_by_role("heading", name=TITLE)).to_be_visible()
    settled(page)


def _asked_and_failed(page, question: str) -> None:
    asked = page.get_by_test_id("stChatMessage").filter(has_text=question)
    # While the run after the failure draws the thread anew, the question can be on screen twice
    # for a moment: as stored (with its Edit button) and, faded, as the previous run drew it.
    expect(asked.first).to_be_visible()
    expect(page.get_by_role("button", name="Retry the answer")).to_be_visible()
    settled(page)
    expect(asked).to_have_count(1)


def _shows_questions(page, questions: list[str]) -> None:
    """The tab's chat pane holds these questions, top to bottom, and nothing else asked."""
    shown = page.get_by_label("Chat message from user")
    expect(shown).to_have_count(len(questions))  # waits for the run the last click started
    settled(page)
    assert [message.get_by_test_id("stMarkdown").first.inner_text().strip() for message in shown.all()] == questions


def test_a_question_from_each_of_two_tabs_is_stored_in_order_and_both_tabs_show_both(seeded, app_url, browser):
    conversation_id, context, (first, second) = _two_tabs_on_one_thread(seeded, app_url, browser)

    ask(first, FROM_FIRST_TAB)
    _asked_and_failed(first, FROM_FIRST_TAB)
    # The second tab still shows the thread as it was when it opened it, and asks from there.
    expect(second.get_by_test_id("stChatMessage").filter(has_text=FROM_FIRST_TAB)).to_have_count(0)
    ask(second, FROM_SECOND_TAB)
    _asked_and_failed(second, FROM_SECOND_TAB)
    # A click on the thread in the first tab runs its page again, as any click does.
    _open_thread(first)

    expected = [SIGNED, FROM_FIRST_TAB, FROM_SECOND_TAB]
    for tab in (first, second):
        _shows_questions(tab, expected)
        expect(tab.get_by_role("button", name="Retry the answer")).to_be_visible()
        expect(tab.get_by_test_id("stSidebar").get_by_role("button", name=TITLE)).to_have_count(1)
    stored = seeded.messages.history(conversation_id)
    assert [m.content for m in stored if m.role is Role.USER] == expected
    assert [m.seq for m in stored] == list(range(1, len(stored) + 1))
    # Each question is followed by its one answer (failed): no turn lost, doubled or interleaved.
    assert [m.role for m in stored] == [Role.USER, Role.ASSISTANT] * 3
    assert [c.id for c in seeded.conversations.list()] == [conversation_id]
    first.screenshot(path=str(ARTIFACTS / "two_tabs_first.png"), full_page=True)
    second.screenshot(path=str(ARTIFACTS / "two_tabs_second.png"), full_page=True)
    context.close()


def test_retry_in_a_tab_that_has_not_seen_the_other_tab_s_question_does_not_answer_that_one(
        seeded, app_url, browser):
    conversation_id, context, (first, second) = _two_tabs_on_one_thread(seeded, app_url, browser)
    ask(first, FROM_FIRST_TAB)
    _asked_and_failed(first, FROM_FIRST_TAB)
    ask(second, FROM_SECOND_TAB)
    _asked_and_failed(second, FROM_SECOND_TAB)
    before = seeded.messages.history(conversation_id)

    # The first tab offers to retry the answer to its own question, the last one it shows.
    first.get_by_role("button", name="Retry the answer").click()

    # The click runs the page again, which reads the thread anew and shows the second tab's
    # question; the answer to that one, which the click was not about, is not asked for again.
    _shows_questions(first, [SIGNED, FROM_FIRST_TAB, FROM_SECOND_TAB])
    assert seeded.messages.history(conversation_id) == before
    expect(first.get_by_role("button", name="Retry the answer")).to_be_visible()
    first.screenshot(path=str(ARTIFACTS / "two_tabs_retry.png"), full_page=True)
    context.close()
