"""The chat page as a user finds their way around it: the open conversation stays open across
pages, its actions sit at the top, new chats leave no empty threads, and the theme follows the
browser. No LLM server is needed."""

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, go_to, open_app, open_popover, run_by_click, settled

LEASE = b"# Lease\n\n## Break clause\n\nThe tenant may end the lease on the fifth anniversary with six months' notice.\n"


def _with_exchange(services, title: str, question: str, answer: str) -> str:
    conversation = services.conversations.create(title)
    services.messages.append_message(conversation.id, "user", question)
    services.messages.append_message(conversation.id, "assistant", answer)
    return conversation.id


def _open_thread(page, title: str) -> None:
    """Opens a conversation from the sidebar once the run drawing the list is over (a click on a
    button that run draws anew is lost), and waits for the run the click starts: on a busy
    machine a run takes longer than a check's 5 s."""
    settled(page)
    run_by_click(page, page.get_by_test_id("stSidebar").get_by_role("button", name=title))
    expect(page.get_by_role("heading", name=title)).to_be_visible()


def test_the_open_conversation_stays_open_across_pages_and_its_documents_are_chosen_in_the_chat(
        seeded, app_url, page):
    _with_exchange(seeded, "Lease renewal", "When can the lease end?", "On the fifth anniversary.")
    _with_exchange(seeded, "Trust questions", "Who is the trustee?", "Harbour Street Bank.")
    seeded.ingestion.ingest("lease.md", LEASE)
    seeded.index.open().close()  # one process at a time: the page opens the index itself
    open_app(page, app_url)
    _open_thread(page, "Trust questions")

    go_to(page, "Documents")
    expect(page.get_by_text("Documents used by “Trust questions”")).to_be_visible()
    go_to(page, "Chat")
    expect(page.get_by_role("heading", name="Trust questions")).to_be_visible()
    expect(page.get_by_text("Harbour Street Bank.")).to_be_visible()

    scope = open_popover(page, page.get_by_role("button", name="Documents"))
    page.get_by_role("combobox", name="Search only these").fill("lease")
    # Choosing reruns the page, which draws Save scope anew: a click on it before that run ends
    # can be lost (a fresh clone's make test met the popover still open, nothing saved).
    run_by_click(page, page.get_by_role("option", name="lease.md"))
    expect(scope.get_by_text("lease.md")).to_be_visible()
    scope.click(position={"x": 8, "y": 8})  # closes the list, not the popover
    run_by_click(page, page.get_by_role("button", name="Save scope"))
    expect(page.get_by_text("Searches 1 of 1 documents.")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "conversation_scope.png"), full_page=True)


def test_a_conversation_s_actions_are_at_the_top_whatever_the_thread_list_holds(seeded, app_url, page):
    for n in range(14):
        _with_exchange(seeded, f"Older question {n}", f"Question {n}?", f"Answer {n}.")
    _with_exchange(seeded, "Supplier contract", "When does it renew?", "Every January.")
    open_app(page, app_url)
    _open_thread(page, "Older question 0")  # at the bottom of the list

    page.get_by_role("button", name="Delete").click()
    confirm = page.get_by_role("button", name="Yes, delete")
    expect(confirm).to_be_in_viewport()
    page.screenshot(path=str(ARTIFACTS / "conversation_delete_confirm.png"))
    confirm.click()

    expect(page.get_by_text("Conversation moved to the trash.")).to_be_visible()
    expect(page.get_by_test_id("stSidebar").get_by_role("button", name="Older question 0")).to_have_count(0)


def test_new_conversation_clicks_leave_no_empty_threads(seeded, app_url, page):
    _with_exchange(seeded, "Supplier contract", "When does it renew?", "Every January.")
    open_app(page, app_url)
    _open_thread(page, "Supplier contract")

    for _ in range(3):
        page.get_by_role("button", name="New conversation").click()
        expect(page.get_by_role("heading", name="docchat")).to_be_visible()

    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_role("button", name="New conversation", exact=True)).to_have_count(1)  # the action
    expect(sidebar.get_by_role("button", name="Supplier contract")).to_have_count(1)


def _background(page) -> tuple[int, ...]:
    color = page.get_by_test_id("stApp").evaluate("element => getComputedStyle(element).backgroundColor")
    return tuple(int(part) for part in color[color.index("(") + 1:color.index(")")].split(",")[:3])


def test_the_page_follows_a_dark_browser(seeded, app_url, dark_page):
    _with_exchange(seeded, "Supplier contract", "When does it **renew**?", "Every January, for a year.")
    open_app(dark_page, app_url)
    _open_thread(dark_page, "Supplier contract")

    assert sum(_background(dark_page)) < 150
    dark_page.screenshot(path=str(ARTIFACTS / "chat_dark.png"), full_page=True)


def test_the_page_is_light_in_a_light_browser(seeded, app_url, page):
    _with_exchange(seeded, "Supplier contract", "When does it **renew**?", "Every January, for a year.")
    open_app(page, app_url)
    _open_thread(page, "Supplier contract")

    assert sum(_background(page)) > 600
    page.screenshot(path=str(ARTIFACTS / "chat_light.png"), full_page=True)


def test_a_chatgpt_export_is_imported_from_the_sidebar_and_opened(app_url, page, tmp_path):
    from tests.foreign_exports import as_file, chatgpt_export

    export = tmp_path / "conversations.json"
    export.write_bytes(as_file(chatgpt_export()))
    open_app(page, app_url)

    box = open_popover(page, page.get_by_test_id("stSidebar").get_by_role("button", name="Import"))
    box.locator("input[type=file]").set_input_files(str(export))
    box.get_by_role("button", name="Import").click()

    # Said where the user is looking, and the first of them opened.
    expect(page.get_by_test_id("stToast").filter(has_text="Imported 2 conversations.")).to_be_visible(timeout=30_000)
    expect(page.get_by_role("heading", name="docchat")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "imported_toast.png"))
    _open_thread(page, "Leeds office lease: rent review")
    expect(page.get_by_text("Yes, once: clause 9.2")).to_be_visible()
    expect(page.get_by_text("Every year, on the anniversary")).to_have_count(0)  # not the branch shown
    page.screenshot(path=str(ARTIFACTS / "imported_chatgpt.png"), full_page=True)


def test_a_file_that_is_not_an_export_is_refused_in_the_page_and_nothing_is_added(app_url, page, tmp_path):
    notes = tmp_path / "notes.json"
    notes.write_text('{"shopping": ["milk", "eggs"]}')
    open_app(page, app_url)

    box = open_popover(page, page.get_by_test_id("stSidebar").get_by_role("button", name="Import"))
    box.locator("input[type=file]").set_input_files(str(notes))
    box.get_by_role("button", name="Import").click()

    expect(box.get_by_text("notes.json:")).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("stSidebar").get_by_text("No conversations yet.")).to_be_visible()


def test_an_earlier_question_is_edited_and_sent_again_and_its_first_version_keeps_what_followed(
        seeded, app_url, page):
    conversation_id = _with_exchange(seeded, "Capitals", "What is the capital of France?", "Paris.")
    seeded.messages.append_message(conversation_id, "user", "And its population?")
    seeded.messages.append_message(conversation_id, "assistant", "About two million.")
    open_app(page, app_url)
    _open_thread(page, "Capitals")

    run_by_click(page, page.get_by_role("button", name="Edit").first)
    box = page.get_by_label("Edit your question")
    expect(box).to_have_value("What is the capital of France?")
    box.fill("What is the capital of Italy?")
    # Three runs: the click's, the one that asks (and fails: no server), the one that shows
    # the new version; in a fresh clone under load they took longer than a check's 5 s.
    run_by_click(page, page.get_by_role("button", name="Send", exact=True))

    main = page.get_by_test_id("stMainBlockContainer")
    expect(main.get_by_text("What is the capital of Italy?")).to_be_visible()
    expect(main.get_by_text("2 / 2")).to_be_visible()
    expect(main.get_by_text("About two million.")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "question_edited.png"), full_page=True)

    run_by_click(page, page.get_by_role("button", name="‹").first)
    expect(main.get_by_text("About two million.")).to_be_visible()
    expect(main.get_by_text("1 / 2")).to_be_visible()
    expect(main.get_by_text("What is the capital of Italy?")).to_have_count(0)


def test_a_long_conversation_opens_on_its_latest_messages_and_shows_earlier_ones_on_request(seeded, app_url, page):
    long = seeded.conversations.create("Long negotiation")
    for n in range(1, 121):
        seeded.messages.append_message(long.id, "user" if n % 2 else "assistant", f"Point {n} of the deal.")
    for n in range(55):
        _with_exchange(seeded, f"Newer thread {n}", f"Question {n}?", f"Answer {n}.")
    open_app(page, app_url)
    sidebar = page.get_by_test_id("stSidebar")
    # 55 newer threads: the long one is beyond the first 50 listed.
    expect(sidebar.get_by_role("button", name="Long negotiation")).to_have_count(0)
    run_by_click(page, sidebar.get_by_role("button", name="Show 6 more conversations (6 not shown)"))
    _open_thread(page, "Long negotiation")

    messages = page.get_by_test_id("stChatMessage")
    expect(messages).to_have_count(50)
    expect(messages.first).to_contain_text("Point 71 of the deal.")
    run_by_click(page, page.get_by_role("button", name="Show 50 earlier messages (70 in all)"))
    expect(messages).to_have_count(100)
    expect(messages.first).to_contain_text("Point 21 of the deal.")
    page.screenshot(path=str(ARTIFACTS / "conversation_earlier_messages.png"))
    run_by_click(page, page.get_by_role("button", name="Show 20 earlier messages"))
    expect(messages).to_have_count(120)
    expect(messages.first).to_contain_text("Point 1 of the deal.")


def test_a_search_hit_in_an_earlier_version_opens_that_version_in_view_and_marked(seeded, app_url, page, dark_page):
    lease = seeded.conversations.create("Flat lease")
    first = seeded.messages.append_message(lease.id, "user", "Is the deposit returned at the end of the lease?")
    seeded.messages.append_message(lease.id, "assistant", "Yes, within 30 days of the keys coming back.")
    for n in range(1, 16):  # the first version's branch runs on, well past one screen
        seeded.messages.append_message(lease.id, "user", f"And what does clause {n} say?")
        seeded.messages.append_message(lease.id, "assistant", f"Clause {n} says the garden is kept tidy.")
    seeded.messages.show_version(lease.id, None, group=first.id)  # then the question is edited
    seeded.messages.post_user_message(lease.id, "Who pays for repairs at the end of the lease?",
                                           version_of=first.id)
    seeded.messages.append_message(lease.id, "assistant", "The tenant, beyond fair wear and tear.")
    _with_exchange(seeded, "Garden", "When is the hedge cut?", "In May.")
    for browser_page, theme in ((page, "light"), (dark_page, "dark")):
        open_app(browser_page, app_url)
        _open_thread(browser_page, "Garden")
        sidebar = browser_page.get_by_test_id("stSidebar")

        sidebar.get_by_placeholder("Search titles and messages").fill("deposit")
        sidebar.get_by_placeholder("Search titles and messages").press("Enter")
        # The hit, once the run that lists it is over: until then the button under that name is
        # the conversation list's, which that run draws anew, and a click on it is lost.
        expect(sidebar.get_by_text("Is the «deposit» returned")).to_be_visible()
        settled(browser_page)
        sidebar.get_by_role("button", name="Flat lease").click()

        main = browser_page.get_by_test_id("stMainBlockContainer")
        mark = main.get_by_role("heading", name="Found: Is the «deposit» returned")
        # In view with no more clicks: the pane ends at the match, and opens at its end.
        expect(mark).to_be_in_viewport()
        expect(main.get_by_text("Is the deposit returned at the end of the lease?", exact=True)).to_be_in_viewport()
        expect(main.get_by_text("Who pays for repairs")).to_have_count(0)
        expect(main.get_by_text("1 / 2")).to_have_count(1)
        # The first time, the match was in a hidden version: the line above the chat box says so.
        said = "in a version that was hidden and is shown now" if theme == "light" else "Found: Is the «deposit»"
        expect(browser_page.get_by_test_id("stBottom").get_by_text(said)).to_be_in_viewport()
        settled(browser_page)
        browser_page.screenshot(path=str(ARTIFACTS / f"search_hit_opened_{theme}.png"))
    later = main.get_by_role("button", name="Show the 31 later messages")
    later.click()
    # Read once the run the click starts is over: it draws 31 messages, seconds on a busy machine.
    settled(dark_page)
    expect(main.get_by_text("Clause 15 says the garden is kept tidy.")).to_be_visible()
    expect(mark).to_have_count(0)
