"""The chat pane (AppTest): a question sent and what the page says when no server answers, the
stored history and its earlier pages, an answer's figures, versions and edits, and text shown as
typed, never as HTML."""

from dataclasses import replace

from docchat.domain import Budget, Role, SessionMemory, Status


def test_a_first_message_starts_a_conversation_titled_after_it(chat_page, services):
    page = chat_page()
    page.chat_input(key="chat_input").set_value("When is the Determination Date for the 2024 trust?").run()

    [conversation] = services.conversations.list()
    assert conversation.title == "When is the Determination Date for the 2024…"
    question = services.messages.history(conversation.id)[0]
    assert question.content == "When is the Determination Date for the 2024 trust?"
    assert page.query_params["c"] == conversation.id


def test_with_no_llm_server_the_question_is_kept_and_the_page_says_why_and_offers_a_retry(chat_page, services):
    page = chat_page()
    page.chat_input(key="chat_input").set_value("What is the notice period?").run()

    [conversation] = services.conversations.list()
    question, answer = services.messages.history(conversation.id)
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
    services.messages.append_message(conversation.id, "user", "What was Q3 revenue?")
    services.messages.append_message(conversation.id, "assistant", "Revenue was 4.2 million.")

    page = chat_page(conversation.id)

    assert [m.markdown[0].value for m in page.chat_message] == ["What was Q3 revenue?", "Revenue was 4.2 million."]
    assert page.header[0].value == "Quarterly report"


def test_a_long_conversation_opens_on_its_latest_messages_and_earlier_ones_come_a_page_a_click(chat_page, services):
    conversation = services.conversations.create("A long one")
    for n in range(1, 121):
        services.messages.append_message(conversation.id, "user" if n % 2 else "assistant", f"message {n}")

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


def test_message_text_is_rendered_as_markdown_never_as_html(chat_page, services):
    conversation = services.conversations.create("Pasted web page")
    services.messages.append_message(conversation.id, "user", "<img src=x onerror=alert(1)> what is this?")

    page = chat_page(conversation.id)

    rendered = page.chat_message[0].markdown[0]
    # The tag in a code span: it reads as written, and is no tag.
    assert rendered.value == "`<img src=x onerror=alert(1)>` what is this?"
    assert rendered.proto.allow_html is False


def _answered(services, title: str, answers: int) -> str:
    """A conversation whose answers carry the figures the pipeline stores with them."""
    conversation = services.conversations.create(title)
    for n in range(1, answers + 1):
        services.messages.append_message(conversation.id, "user", f"Question {n}?")
        answer = services.messages.append_message(conversation.id, "assistant", f"Answer {n}.")
        budget = Budget(max_model_len=8192, answer_reserve=512, system=40, history=100 * n, question=12, template=9,
                        history_messages=2 * n, dropped_messages=0, counter="qwen", exact=True,
                        mode="passages", passages=3, chunks=700, chunks_cap=2000)
        with services.conversations._uow(write=True) as uow:
            uow.conversations.settle_message(answer.with_facts(budget=budget))
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


def test_a_first_open_with_no_documents_points_to_the_documents_page(chat_page):
    page = chat_page()

    [link] = page.get("page_link")
    assert link.proto.label == "No documents yet: add some on the Documents page"
    assert link.proto.page == "Documents"


def test_a_rewritten_query_and_the_session_memory_are_shown(chat_page, services):
    conversation = services.conversations.create("Trust questions")
    services.messages.append_message(conversation.id, "user", "What is the Determination Date?")
    services.messages.post_user_message(conversation.id, "And if it falls on a weekend?",
                                             rewritten_query="Determination Date falls on a weekend")
    with services.conversations._uow(write=True) as uow:
        uow.conversations.save_settings(conversation.id, replace(conversation.settings, session=SessionMemory(
            resolved_terms={"Determination Date": "The 15th of each month."}, turns=1)))
        uow.commit()

    page = chat_page(conversation.id)

    assert any(c.value == "Searched as: Determination Date falls on a weekend" for c in page.caption)
    assert any(t.value == "Determination Date: The 15th of each month." for t in page.text)


def test_an_answer_with_versions_shows_which_one_and_the_arrows_switch_the_one_followed(chat_page, services):
    import uuid

    conversation = services.conversations.create("Capital")
    services.messages.append_message(conversation.id, "user", "What is the capital of France?")
    first = services.messages.append_message(conversation.id, "assistant", "Paris.")
    services.messages.show_version(conversation.id, None, group=first.id)
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
    assert [m.shown for m in services.messages.history(conversation.id)] == [True, True, False]


def _two_turns(services) -> tuple[str, list]:
    conversation = services.conversations.create("Capitals")
    stored = [services.messages.append_message(conversation.id, role, text) for role, text in (
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
    assert [m.shown for m in services.messages.history(conversation_id)] == [True] * 4
    page.button(key="chat_edit_cancel").click().run()
    assert [m.markdown[0].value for m in page.chat_message][0] == "What is the capital of France?"


def test_a_question_typed_on_two_lines_is_shown_on_two_lines(chat_page, services):
    conversation = services.conversations.create("Lease questions")
    services.messages.append_message(conversation.id, "user", "Two things:\nthe deposit, and the break clause?")

    page = chat_page(conversation.id)

    # A hard break: Markdown would join the two lines into one.
    assert page.chat_message[0].markdown[0].value == "Two things:  \nthe deposit, and the break clause?"


def test_a_follow_up_searched_with_the_earlier_question_says_so_on_a_line_of_its_own(chat_page, services):
    conversation = services.conversations.create("Trust questions")
    services.messages.append_message(conversation.id, "user", "When were the greenhouse tomatoes planted?")
    services.messages.append_message(conversation.id, "assistant", "In March.")
    services.messages.post_user_message(
        conversation.id, "Write a summary of the lease.",
        rewritten_query="Write a summary of the lease. When were the greenhouse tomatoes planted?")

    page = chat_page(conversation.id)

    assert [c.value for c in page.caption if c.value.startswith("Searched")] == [
        "Searched for the question, and for it with the earlier question:  \n"
        "“When were the greenhouse tomatoes planted?”"]


def test_the_meter_says_when_the_window_was_assumed_rather_than_reported(chat_page, services):
    conversation = services.conversations.create("Over llama-cpp-python")
    services.messages.append_message(conversation.id, "user", "Who is the trustee?")
    answer = services.messages.append_message(conversation.id, "assistant", "Margaret Hartley.")
    budget = Budget(max_model_len=2048, answer_reserve=512, system=40, history=0, question=12, template=9,
                    history_messages=0, dropped_messages=0, counter="server-tokenize:llama-cpp-python:smollm2",
                    exact=True, window_source="assumed")
    with services.conversations._uow(write=True) as uow:
        uow.conversations.settle_message(answer.with_facts(budget=budget))
        uow.commit()

    page = chat_page(conversation.id)

    assert page.get("progress")[-1].proto.text == (
        "Token budget: 573 of 2,048 (exact, server-tokenize:llama-cpp-python:smollm2; window: assumed)")
