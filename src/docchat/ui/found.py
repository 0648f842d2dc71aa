"""The message a search hit opened: the branch that holds it is shown (as the version arrows
show one, so the history follows it), and the pane ends at it, marked, with the messages after
it one click away (as a chat app's "jump to" does).

Ending the pane there is what scrolls to it: the page runs no script but Streamlit's own (its
content policy), and Streamlit's chat pane glides to its end whenever a conversation opens.
"""

from __future__ import annotations

import streamlit as st

from docchat.domain import Message, SearchHit
from docchat.errors import DocchatError
from docchat.ui.session import flash, open_conversation, services
from docchat.ui.text import count, literal

KEY = "found"
# Messages drawn before the one found, for its context.
CONTEXT = 4


def open_hit(hit: SearchHit) -> None:
    """Opens the conversation a hit names, on the branch that holds the message it found (a
    hit on the title alone names none)."""
    forget()
    if hit.seq is not None:
        try:
            found = services().messages.show_found(hit.conversation_id, hit.seq)
        except DocchatError as error:
            flash(str(error), "error")  # gone since the search ran: the conversation opens as it is
        else:
            st.session_state[KEY] = {"conversation": hit.conversation_id, "message": found.message.id,
                                     "reach": found.reach, "switched": found.switched, "snippet": hit.snippet}
    open_conversation(hit.conversation_id)


def reach(conversation_id: str | None) -> int:
    """How many of the latest messages the pane reads, at least, for the message found and a few
    before it to be among them."""
    found = st.session_state.get(KEY)
    if found and found["conversation"] != conversation_id:
        st.session_state.pop(KEY)  # another conversation is open: the mark has done its work
        return 0
    return found["reach"] + CONTEXT if found else 0


def up_to_it(history: list[Message]) -> list[Message]:
    """The messages the pane draws: those up to the one found, while one is; else all."""
    found = st.session_state.get(KEY)
    ids = [message.id for message in history]
    if not found or found["message"] not in ids:
        return history
    return history[:ids.index(found["message"]) + 1]


def later(history: list[Message], drawn: list[Message]) -> None:
    """Under the message found: the button that draws the messages after it."""
    hidden = len(history) - len(drawn)
    if hidden and st.button(f"Show the {count(hidden, 'later message')}", key=f"{KEY}_later",
                            icon=":material/expand_more:"):
        forget()
        st.rerun()


def forget() -> None:
    st.session_state.pop(KEY, None)


def mark(message: Message) -> None:
    """Marks the message found where it stands, and says on the line above the chat box what was
    found, and whether its version was hidden until now."""
    found = st.session_state.get(KEY)
    if not found or found["message"] != message.id:
        return
    snippet = literal(found["snippet"])
    st.subheader(f":small[:orange-background[:material/search: Found: {snippet}]]", anchor=False)
    where = " in a version that was hidden and is shown now (‹ › switch back)" if found["switched"] else ""
    st.bottom.caption(f":material/search: Found{where}: {snippet}")
