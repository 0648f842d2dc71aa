"""The message a search hit opened: the branch that holds it is shown (as the version arrows
show one, so the history follows it), the pane draws back to it, and it is marked where it stands.

The page cannot scroll to it by itself: its content policy runs no script but Streamlit's own,
and Streamlit scrolls to a heading only when the address names it (`#...`), which only a click
on a link does. So the mark is a heading with an anchor, and a line that stays in view links to it.
"""

from __future__ import annotations

import streamlit as st

from docchat.domain import Message, SearchHit
from docchat.errors import DocchatError
from docchat.ui.session import flash, open_conversation, services
from docchat.ui.text import literal

KEY = "found"
# Unlike any heading's own anchor (Streamlit makes those from their text).
ANCHOR = "docchat-search-match"


def open_hit(hit: SearchHit) -> None:
    """Opens the conversation a hit names, on the branch that holds the message it found (a
    hit on the title alone names none)."""
    st.session_state.pop(KEY, None)
    if hit.seq is not None:
        try:
            found = services().conversations.show_found(hit.conversation_id, hit.seq)
        except DocchatError as error:
            flash(str(error), "error")  # gone since the search ran: the conversation opens as it is
        else:
            st.session_state[KEY] = {"conversation": hit.conversation_id, "message": found.message.id,
                                     "reach": found.reach, "switched": found.switched, "snippet": hit.snippet}
    open_conversation(hit.conversation_id)


def reach(conversation_id: str | None) -> int:
    """How many of the latest messages the pane draws, at least, for the message found to be among them."""
    found = st.session_state.get(KEY)
    if found and found["conversation"] != conversation_id:
        st.session_state.pop(KEY)  # another conversation is open: the mark has done its work
        return 0
    return found["reach"] if found else 0


def mark(message: Message) -> None:
    """Marks the message found where it stands, and says what was found on the line above the
    chat box, in view wherever the pane stands (it opens at the conversation's end), with a link
    to the mark."""
    found = st.session_state.get(KEY)
    if not found or found["message"] != message.id:
        return
    snippet = literal(found["snippet"])
    st.subheader(f":small[:orange-background[:material/search: Found: {snippet}]]", anchor=ANCHOR)
    # The link first: a long line wraps, and the link stays whole.
    where = ", in a version that was hidden and is shown now (‹ › switch back)" if found["switched"] else ""
    st.bottom.caption(f"[:material/search: Go to the match](#{ANCHOR}){where}: {snippet}")
