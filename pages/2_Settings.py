"""Settings and health: the same figures as `docchat doctor`. Listed by app.py's navigation."""

from docchat import shared
from docchat.ui import session
from docchat.ui.health import render

session.provide(shared.services, shared.rebuild)
render()
