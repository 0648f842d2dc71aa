"""Settings and health: the same figures as `docchat doctor`. Listed by app.py's navigation."""

from docchat.ui.health import render

render()
