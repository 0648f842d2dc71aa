"""The Streamlit page's parts; pages hold no application logic."""

from pathlib import Path

ICON = Path(__file__).with_name("icon.png")
