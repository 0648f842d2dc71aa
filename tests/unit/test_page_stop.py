"""A page stopped by Ctrl-C waits a few seconds for what is still open, not for good
(docchat.cli.page.bound_the_stop). Fails too when Streamlit stops building its uvicorn settings
in the function docchat wraps, so that an upgrade says so."""

import uvicorn
from streamlit.web.server.starlette import starlette_server

from docchat import STOP_GRACE_S
from docchat.cli.page import bound_the_stop


def test_the_pages_server_closes_open_connections_a_few_seconds_after_it_is_told_to_stop():
    bound_the_stop()
    bound_the_stop()  # a second page in the process wraps nothing more

    settings = starlette_server._get_uvicorn_config_kwargs()

    assert settings["timeout_graceful_shutdown"] == STOP_GRACE_S
    assert uvicorn.Config(app=None, **settings).timeout_graceful_shutdown == STOP_GRACE_S
