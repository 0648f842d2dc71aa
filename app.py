"""docchat's entry point: the chat page (thread sidebar, chat pane) and the page list. UI only."""

import streamlit as st

from docchat import shared
from docchat.ui import ICON, chat, session, sidebar
from docchat.ui.session import current_conversation_id, show_flash

session.provide(shared.services, shared.rebuild)


def chat_page() -> None:
    conversation_id = current_conversation_id()
    sidebar.render(conversation_id)
    show_flash()
    chat.render(conversation_id)


# A bundled image: an icon by name makes the browser fetch a font from the internet.
st.set_page_config(page_title="docchat", page_icon=str(ICON), layout="wide")
session.stop_unless_the_database_opens()
# Until this script has run once in a session, Streamlit's page list is the pages/ folder's
# ("app", "Documents", "Settings"); a click on it in that first moment opens the page outside
# this navigation. The e2e tests wait for the chat input before navigating.
st.navigation(
    [
        st.Page(chat_page, title="Chat", icon=":material/forum:", default=True),
        st.Page("pages/1_Documents.py", title="Documents", icon=":material/description:"),
        st.Page("pages/2_Settings.py", title="Settings", icon=":material/settings:"),
    ]
).run()
