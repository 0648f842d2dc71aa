"""The chat pane: the header, the stored history with each answer's figures, and the answer being
streamed, with what the turn is doing until its first word and a Stop button from the start.

Every message (questions, answers, imported ones, the answer as it streams) is shown through
`safe_markdown.inert`: an image, raw HTML or a `javascript:` link a document put in an answer is
shown as text, so showing it fetches and runs nothing."""

from __future__ import annotations

import re

import streamlit as st
from streamlit.runtime.scriptrunner import StopException

from docchat.domain import FINISHED, AnswerFacts, AnswerForm, Conversation, Judgement, Message, Rating, Role, Status, answer_note, form_line
from docchat.domain.approach import asked, covered_line
from docchat.domain.grounding import answer_form
from docchat.domain.turns import may_ask_the_model, may_continue, may_regenerate, needs_retry
from docchat.errors import DocchatError, NotFound
from docchat.web.safe_markdown import inert
from docchat.ui import figures, found, header, server_start, sources
from docchat.ui.session import flash, open_conversation, services
from docchat.ui.streaming import (BY_A_CLOSED_PAGE, STOP, STREAMING, being_written, clearing, stop_previous_answer,
                                  written)
from docchat.ui.text import count, literal

KEY = "chat"
# A message that was not sent (refused, or stopped before its answer began), kept to edit.
UNSENT = f"{KEY}_unsent"
# The earlier question being edited ({"id", "text"}), and the edit to send on the next run.
EDITING = f"{KEY}_editing"
EDITED = f"{KEY}_edited"
# The last message answered again ({"id", "how": "retry" | "continue", "plan"}): Regenerate, Retry or
# Continue was clicked; the next run streams the answer where that one was drawn.
AGAIN = f"{KEY}_again"
# The plans an answer may be asked again with ("Answer another way").
PLANS = {"lookup": "Search for the best passages", "collection": "Read every document in scope",
         "compare": "Compare the documents side by side", "table": "Compute the figure from a sheet"}
# The forms an answer may be written again in; "constrained" is the gate's to choose.
FORMS = {AnswerForm.QUOTED: "Quote the documents", AnswerForm.FREE: "Write it in the model's own words"}
# st.feedback's thumbs: 0 is down, 1 is up.
THUMBS = {Rating.DOWN: 0, Rating.UP: 1}
AVATARS = {"user": ":material/person:", "assistant": ":material/smart_toy:", "system": ":material/settings:"}
# The latest messages drawn when a conversation opens; "Show earlier messages" adds as many
# again. Streamlit draws every element anew on each rerun, so a long conversation drawn whole
# made every click wait seconds.
PAGE = 50
SHOWN = f"{KEY}_shown"
# A single line break, not one ending a paragraph or already a hard break (a backslash).
_LINE_BREAK = re.compile(r"(?<![\\\n])\n(?!\n)")


def render(conversation_id: str | None) -> None:
    stop_previous_answer()
    conversation = _open(conversation_id)
    # Every version of a question or an answer is kept; the page (and the model's history)
    # follows the branch shown, of which it reads only the latest messages it draws.
    drawn = max(st.session_state.setdefault(SHOWN, {}).get(conversation_id, PAGE), found.reach(conversation_id))
    recent = services().messages.recent(conversation.id, drawn) if conversation else None
    history, versions = (recent.messages, recent.versions) if recent else ([], {})
    if conversation is None:
        conversation_id = None
        st.header("docchat", anchor=False)
        st.caption("Chat with your documents, on your own machine. Type below to start a conversation.")
        if not services().documents.list():
            st.page_link("pages/1_Documents.py", label="No documents yet: add some on the Documents page",
                         icon=":material/upload_file:")
    else:
        header.render(conversation)
        figures.session_panel(conversation)
    resend = st.session_state.pop(EDITED, None)
    if resend is not None and conversation_id:
        # The edit starts a branch where the question was asked: what followed it gives way.
        history = [m for m in history if m.seq < resend["seq"]]
    again = st.session_state.pop(AGAIN, None)
    if not (conversation_id and history and again and again["id"] == history[-1].id):
        again = None  # a click on a page that had not seen the conversation move on since
    elif history[-1].role is Role.ASSISTANT:
        history = history[:-1]  # its new version, or the rest of it, is streamed in its place
    answers = [m for m in history if m.role is Role.ASSISTANT]
    sources.open_linked(history)
    if recent and recent.shown > drawn:
        _earlier(conversation_id, drawn, recent.shown)
    up_to_found = found.up_to_it(history)
    for message in up_to_found:
        _message(message, latest=bool(answers) and message is answers[-1], versions=versions[message.group],
                 last=message is history[-1])
    found.later(history, up_to_found)
    # The turn being asked is drawn here, right after the history, although what starts it (the
    # chat box, Retry) comes below: the rerun that follows draws the stored question and answer
    # at this place, so they replace what was streamed instead of showing twice until it ends.
    new_turn = st.container()
    if resend is not None and conversation_id:
        with new_turn:
            _resend(conversation_id, resend)
    if again:
        with new_turn:
            _answer_again(conversation_id, again["how"], again["plan"], again.get("form"))
    _server_notice()
    if conversation is not None and history:
        _last_message_actions(history[-1], documents_only=services().chat.documents_only(conversation.settings))
    edited = _unsent(conversation_id, history)
    text = st.chat_input("Ask about your documents", key=f"{KEY}_input")
    for question in (edited, text):
        if question is not None:
            with new_turn:
                _ask(conversation_id, question)


def _last_message_actions(last: Message, *, documents_only: bool) -> None:
    """Retry, Continue, or the model's own answer to what the documents do not hold, below the
    history. Their keys name the message, and the run a click starts acts only if that message is
    still the last (see `render`): a click in a tab that has not seen a question asked since in
    another tab does not answer that other question."""
    if needs_retry(last):
        st.button("Retry the answer", key=f"{KEY}_retry_{last.id}", icon=":material/refresh:",
                  on_click=_start_again, args=(last, "retry"))
    if may_ask_the_model(last, documents_only=documents_only):
        st.button("Ask the model anyway", key=f"{KEY}_model_{last.id}", icon=":material/smart_toy:",
                  help="The model answers in its own words, labelled as not from your documents; "
                       "this reply is kept as an earlier version",
                  on_click=_start_again, args=(last, "retry", None, AnswerForm.FREE.value))
    if may_continue(last):
        st.button("Continue the answer", key=f"{KEY}_continue_{last.id}", icon=":material/arrow_forward:",
                  on_click=_start_again, args=(last, "continue"))


def _start_again(last: Message, how: str, plan: str | None = None, form: str | None = None) -> None:
    st.session_state[AGAIN] = {"id": last.id, "how": how, "plan": plan, "form": form}


def _answer_again(conversation_id: str, how: str, plan: str | None, form: str | None) -> None:
    if how == "continue":
        _stream(lambda progress: services().chat.continue_answer(conversation_id, progress=progress))
    else:
        _stream(lambda progress: services().chat.retry(conversation_id, plan=asked(plan), form=answer_form(form),
                                                       progress=progress))


def _earlier(conversation_id: str, drawn: int, shown: int) -> None:
    """The button above the messages drawn: PAGE more for each click."""
    earlier = shown - drawn
    more = min(PAGE, earlier)
    label = f"Show {count(more, 'earlier message')}" + (f" ({earlier:,} in all)" if earlier > more else "")
    if st.button(label, key=f"{KEY}_earlier", icon=":material/expand_less:"):
        st.session_state[SHOWN][conversation_id] = drawn + PAGE
        st.rerun()


def _open(conversation_id: str | None) -> Conversation | None:
    if not conversation_id:
        return None
    try:
        return services().conversations.get(conversation_id)
    except NotFound:
        open_conversation(None)
        st.warning("That conversation no longer exists.")
        return None


def _ask(conversation_id: str | None, text: str) -> None:
    if not text.strip():
        st.warning("A message cannot be empty.", icon=":material/edit_off:")
        return
    # Kept until the question is stored: a refusal or an early Stop leaves it here to edit.
    st.session_state[UNSENT] = {"conversation": conversation_id, "text": text, "why": None}
    found.forget()  # the answer comes after the latest message, which the page shows again
    with st.chat_message("user", avatar=AVATARS["user"]):
        st.markdown(_as_typed(text))
    _stream(lambda progress: services().chat.answer(conversation_id, text, progress=progress))


def _resend(conversation_id: str, edited: dict) -> None:
    with st.chat_message("user", avatar=AVATARS["user"]):
        st.markdown(_as_typed(edited["text"]))
    _stream(lambda progress: services().chat.edit(conversation_id, edited["id"], edited["text"], progress=progress))


def _unsent(conversation_id: str | None, history: list[Message]) -> str | None:
    """The message that was not sent, in a box to edit and send again; returns it once sent."""
    unsent = st.session_state.get(UNSENT)
    if not unsent or unsent["conversation"] != conversation_id:
        return None
    asked = [m.content for m in history if m.role is Role.USER]
    if asked and asked[-1] == unsent["text"] and unsent["why"] is None:
        st.session_state.pop(UNSENT)  # stopped after the question was stored: nothing was lost
        return None
    with st.container(border=True, key=f"{KEY}_unsent_box"):
        st.caption(unsent["why"] or "Not sent: stopped before the answer began. Edit it or send it again.")
        text = st.text_area("Your message", value=unsent["text"], key=f"{KEY}_unsent_text_{hash(unsent['text'])}")
        with st.container(horizontal=True):
            send = st.button("Send", key=f"{KEY}_unsent_send", type="primary", icon=":material/send:")
            if st.button("Discard", key=f"{KEY}_unsent_discard"):
                st.session_state.pop(UNSENT)
                st.rerun()
    return text if send else None


def _message(message: Message, *, latest: bool, versions: list[Message] = (), last: bool = False) -> None:
    facts = message.facts
    with st.chat_message(message.role.value, avatar=AVATARS[message.role.value]):
        found.mark(message)
        editing = st.session_state.get(EDITING)
        if message.role is Role.USER and editing and editing["id"] == message.id:
            _editor(message, editing["text"])
            return
        if message.role is Role.ASSISTANT and (note := answer_note(facts.evidence, facts.model)):
            _evidence_note(note, message)
        if message.status is not Status.STREAMING and (form := form_line(facts.form, facts.model)):
            st.caption(f":material/{'calculate' if facts.form is AnswerForm.STATED else 'format_quote'}: {form}")
        if message.content and message.status is not Status.STREAMING:
            # Markdown that fetches nothing, never HTML: user and model text must not inject markup.
            st.markdown(sources.linked(message) if facts.citations else
                        _as_typed(message.content) if message.role is Role.USER else inert(sources.with_numbers_marked(message)))
        if message.read_with:
            # Two searches, not one glued string: the question, then the question read with the earlier one.
            st.caption(f"Searched for the question, and for it with the earlier question:  \n"
                       f"“{literal(message.read_with)}”")
        elif message.rewritten_query:
            st.caption(f"Searched as: {literal(message.rewritten_query)}")
        if message.status is not Status.STREAMING:
            _plan_lines(facts)
        if facts.grounding is not None and message.status is not Status.STREAMING:
            sources.checked(message)
        if facts.citations:
            sources.listed(message)
        if message.status is Status.INTERRUPTED:
            st.caption(f"Interrupted: {literal(facts.error or 'stopped before the end')}")
        elif message.status is Status.TRUNCATED:
            st.caption("Cut at the answer length limit: “Continue the answer” goes on from here.")
        elif message.status is Status.ERROR:
            st.error(f"No answer: {literal(facts.error or 'the LLM failed')}", icon=":material/error:")
        elif message.status is Status.STREAMING:
            being_written(message)
        if message.role is Role.ASSISTANT and (message.status in FINISHED and message.content or len(versions) > 1):
            _answer_actions(message, versions, regenerate=may_regenerate(message, last=last))
        elif message.role is Role.USER:
            _question_actions(message, versions)
        if facts.budget is not None:
            figures.shown(facts.budget, facts.stats, expanded=latest)


def _plan_lines(facts: AnswerFacts) -> None:
    """What the answer covered, under it, and the query of a figure one click away (a figure the
    answer states says where it came from in the answer itself)."""
    if covered := covered_line(facts.approach, facts.coverage, facts.table, stated=facts.form is AnswerForm.STATED):
        st.caption(f":material/library_books: {literal(covered)}")
    if facts.table is not None:
        with st.expander(f"The query {literal(facts.table.written_by)} wrote" if facts.table.written_by
                         else "The query docchat ran"):
            st.code(facts.table.sql, language="sql", wrap_lines=True)


def _evidence_note(note: str, answer: Message) -> None:
    """Above the answer, so that it is read first: an answer the documents did not hold (or held
    only weakly) reads like any other."""
    evidence = answer.facts.evidence
    score = f" (evidence score {evidence.score:.2f})" if evidence else ""
    if evidence and evidence.judgement is Judgement.NOT_FOUND:
        st.warning(note + score, icon=":material/search_off:")
    else:
        st.caption(f":material/help: {note}{score}")


def _answer_actions(answer: Message, versions: list[Message], *, regenerate: bool) -> None:
    with st.container(horizontal=True, vertical_alignment="center", key=f"{KEY}_actions_{answer.id}"):
        if len(versions) > 1:
            _version_switch(answer, versions)
        if answer.status in FINISHED and answer.content:
            key = f"{KEY}_rate_{answer.id}"
            st.feedback("thumbs", key=key, default=THUMBS.get(answer.facts.rating), on_change=_rate, args=(answer, key))
            with st.popover("Copy", icon=":material/content_copy:", type="tertiary"):
                # A code block has the browser's copy button; the answer's Markdown, as written.
                st.code(answer.content, language="markdown", wrap_lines=True)
        if regenerate:
            st.button("Regenerate", key=f"{KEY}_regenerate_{answer.id}", icon=":material/refresh:", type="tertiary",
                      help="Answer again; this answer is kept as an earlier version",
                      on_click=_start_again, args=(answer, "retry"))
            _other_plans(answer)


def _other_plans(answer: Message) -> None:
    """Asking the question again with a plan the user chooses: a new version of the question, the
    earlier one and its answer kept."""
    current = answer.facts.approach.way.value if answer.facts.approach else None
    with st.popover("Answer another way", icon=":material/alt_route:", type="tertiary"):
        for plan, label in PLANS.items():
            if plan != current:
                st.button(label, key=f"{KEY}_plan_{plan}_{answer.id}", type="tertiary",
                          on_click=_start_again, args=(answer, "retry", plan))
        # Another form needs passages: an answer given none has nothing to quote or cite.
        for form, label in FORMS.items() if answer.cited or answer.uncited else ():
            if form != answer.facts.form:
                st.button(label, key=f"{KEY}_form_{form.value}_{answer.id}", type="tertiary",
                          on_click=_start_again, args=(answer, "retry", None, form.value))


def _question_actions(question: Message, versions: list[Message]) -> None:
    with st.container(horizontal=True, vertical_alignment="center", key=f"{KEY}_question_actions_{question.id}"):
        if len(versions) > 1:
            _version_switch(question, versions)
        st.button("Edit", key=f"{KEY}_edit_{question.id}", icon=":material/edit:", type="tertiary",
                  help="Edit this question and ask it again; this version and what followed it are kept",
                  on_click=_start_editing, args=(question,))


def _start_editing(question: Message) -> None:
    st.session_state[EDITING] = {"id": question.id, "text": question.content}


def _editor(question: Message, text: str) -> None:
    """The question in a box to edit; Send asks it again from where it was asked."""
    edited = st.text_area("Edit your question", value=text, key=f"{KEY}_edit_text_{question.id}_{hash(text)}")
    with st.container(horizontal=True):
        send = st.button("Send", key=f"{KEY}_edit_send", type="primary", icon=":material/send:")
        cancel = st.button("Cancel", key=f"{KEY}_edit_cancel")
    if cancel:
        st.session_state.pop(EDITING, None)
        st.rerun()
    if send and not edited.strip():
        st.warning("A message cannot be empty.", icon=":material/edit_off:")
    elif send:
        # Kept until the edit is asked: a refusal leaves the box open with the text.
        st.session_state[EDITING] = {"id": question.id, "text": edited}
        st.session_state[EDITED] = {"id": question.id, "seq": question.seq, "text": edited}
        st.rerun()


def _version_switch(message: Message, versions: list[Message]) -> None:
    """‹ 2 / 3 ›: which version of this question or answer is shown, and followed by the
    history (with the turns that followed that version)."""
    at = versions.index(message)
    for step, arrow, label in ((-1, "‹", "Previous version"), (1, "›", "Next version")):
        if step == 1:
            st.caption(f"{at + 1} / {len(versions)}", width="content")
        target = at + step
        if st.button(arrow, key=f"{KEY}_version_{message.id}_{step}", type="tertiary", help=label,
                     disabled=not 0 <= target < len(versions)):
            services().messages.show_version(message.conversation_id, versions[target].id)
            st.rerun()


def _rate(answer: Message, key: str) -> None:
    chosen = st.session_state.get(key)
    rating = None if chosen is None else next(r for r, thumb in THUMBS.items() if thumb == chosen)
    try:
        services().messages.rate(answer.conversation_id, answer.id, rating)
    except DocchatError as error:
        flash(str(error), "error")


def _server_notice() -> None:
    if server_start.shown():
        return
    status = services().llm.reachable()
    if status is not None:
        st.warning(f"{status} Your messages are still saved: {services().llm.start_advice}, and retry.",
                   icon=":material/cloud_off:")


def _stream(start_turn) -> None:
    """Streams one answer into the page. Until its first word, the page says what the turn is
    doing; a click on Stop (or any rerun) ends it, as interrupted once the answer has begun."""
    with st.chat_message("assistant", avatar=AVATARS["assistant"]):
        st.button("Stop", key=STOP, icon=":material/stop_circle:")
        stage = st.empty()
        stage.caption(":material/hourglass_top: Reading the conversation…")
        try:
            turn = start_turn(lambda text: stage.caption(f":material/hourglass_top: {text}"))
        except DocchatError as error:
            unsent = st.session_state.get(UNSENT)
            if unsent is None:
                flash(str(error), "error")
            else:
                unsent["why"] = f"Not sent: {error}. Edit it and send again."
            st.rerun()
        st.session_state.pop(UNSENT, None)
        st.session_state.pop(EDITING, None)
        open_conversation(turn.conversation_id)
        st.session_state[STREAMING] = turn
        stage.caption(":material/hourglass_top: Waiting for the model…")
        try:
            # A continued answer is drawn whole: the cut one gave way to it (see `render`).
            written(clearing(turn, stage), st.empty(), before=turn.prefix)
        except DocchatError:
            pass  # stored with the message; shown by the rerun below
        except StopException:
            # How Streamlit ends this run for a reload or a closed page, and also for any click
            # (Stop included), which starts a new run at once: that run, if any, knows which
            # click it was and says so (_stop_previous_answer).
            turn.close(BY_A_CLOSED_PAGE)
            raise
        finally:
            # A click on Stop reruns the script, which raises through the next draw; closing
            # here settles the answer as interrupted before the next run reads it.
            turn.close()
    st.session_state.pop(STREAMING, None)
    st.rerun()


def _as_typed(question: str) -> str:
    """A question with its line breaks (Shift+Enter) kept: Markdown joins two lines into one
    unless the first ends in a hard break."""
    return _LINE_BREAK.sub("  \n", inert(question))
