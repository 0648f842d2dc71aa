"""docchat's chat page: thread sidebar and chat pane. UI only; the services do the work."""

import streamlit as st

from docchat.ui import chat, sidebar
from docchat.ui.session import current_conversation_id, show_flash

st.set_page_config(page_title="docchat", page_icon=":material/forum:", layout="wide")

conversation_id = current_conversation_id()
sidebar.render(conversation_id)
show_flash()
chat.render(conversation_id)
