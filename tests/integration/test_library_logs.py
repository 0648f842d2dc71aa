"""The libraries' log lines go to the data dir's log, never to the user's terminal (issue 54):
DSPy's "LM response was truncated" was printed in the middle of a `docchat ask`."""

from __future__ import annotations

import logging

from docchat.bootstrap.environment import LIBRARY_LOG, keep_library_logs
from docchat.context.programs import _dspy


def test_a_dspy_warning_is_kept_in_the_log_file_and_not_printed(tmp_path, capfd):
    keep_library_logs(tmp_path / "logs")
    _dspy()  # dspy, once imported, gave its logger a handler that writes to stderr

    logging.getLogger("dspy.clients.lm").warning("LM response was truncated; increase max_tokens.")
    logging.getLogger("httpx").warning("HTTP Request: POST http://127.0.0.1:8000/v1/chat/completions")

    for handler in logging.getLogger("dspy").handlers:
        handler.flush()
    printed = capfd.readouterr()
    assert "truncated" not in printed.err + printed.out and "HTTP Request" not in printed.err + printed.out
    kept = (tmp_path / "logs" / LIBRARY_LOG).read_text()
    assert "dspy.clients.lm WARNING LM response was truncated" in kept
    assert "httpx WARNING HTTP Request" in kept
