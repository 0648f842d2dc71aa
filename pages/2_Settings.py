"""Settings and health: the same figures as `docchat doctor`."""

import streamlit as st

from docchat.ui.health import render

st.set_page_config(page_title="docchat · Settings", page_icon=":material/settings:", layout="wide")
render()
