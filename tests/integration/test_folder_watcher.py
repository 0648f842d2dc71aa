"""While `docchat run` or `docchat api` serves, a followed folder's changes reach the library
with no user action; the process stops cleanly. The real command, as a subprocess."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.sqlite_files import sql
from tests.network import free_port

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {
    "run": ["run", "--no-llm", "--no-api", "--port"],
    "api": ["api", "--port"],
}


def eventually(read, expected, timeout_s: float = 90.0):
    """What `read` returns once it equals `expected` (polled), or its last value."""
    deadline = time.monotonic() + timeout_s
    value = read()
    while value != expected and time.monotonic() < deadline:
        time.sleep(0.2)
        value = read()
    return value


@pytest.fixture
def notes(tmp_path, data_dir) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "bread.md").write_text("# Bread\n\nKnead the dough for ten minutes.\n")
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(data_dir)}
    added = subprocess.run([str(Path(sys.executable).with_name("docchat")), "folders", "add", str(folder)],
                           env=env, capture_output=True, text=True, timeout=300)
    assert added.returncode == 0, added.stderr
    return folder


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_change_in_a_followed_folder_reaches_the_library_while_the_app_runs(command, notes, data_dir, tmp_path):
    def names():
        return sorted(name for (name,) in sql(data_dir, "SELECT name FROM documents WHERE status = 'ready'"))

    log = open(tmp_path / "app.log", "wb")
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(data_dir)}
    app = subprocess.Popen([sys.executable, "-m", "docchat.cli", *COMMANDS[command], str(free_port())], cwd=ROOT,
                           env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        # Changed while the app was starting or running: found by its first pass or by an event.
        (notes / "rye.md").write_text("# Rye\n\nRye bread needs no kneading.\n")
        assert eventually(names, ["bread.md", "rye.md"]) == ["bread.md", "rye.md"]

        (notes / "bread.md").unlink()
        (notes / "sub").mkdir()
        (notes / "sub" / "spelt.txt").write_text("Spelt flour makes a nutty loaf.\n")
        assert eventually(names, ["rye.md", "sub/spelt.txt"]) == ["rye.md", "sub/spelt.txt"]
        # A removed document stops being ready first, and its chunks go a moment later (after its
        # vectors: services/documents.py `remove`); under load that moment was seen between the two.
        def kneading():
            return sql(data_dir, "SELECT count(*) FROM chunks WHERE text LIKE '%Knead the dough%'")
        assert eventually(kneading, [(0,)]) == [(0,)]
    finally:
        os.killpg(app.pid, signal.SIGTERM)
        code = app.wait(timeout=60)
        log.close()
    output = (tmp_path / "app.log").read_text()
    assert "Traceback" not in output, output
    assert code in (0, 130, -signal.SIGTERM), output
