"""Upload, library and per-conversation scope. Listed by app.py's navigation."""

from docchat.ui.documents import render

render()
