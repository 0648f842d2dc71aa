"""Upload, library and per-conversation scope. Listed by app.py's navigation."""

from docchat import shared
from docchat.ui import library_check, session
from docchat.ui.documents import render

session.provide(shared.services, shared.rebuild)
render()
library_check.render()
