"""What every fuzz property checks: a refusal is docchat's own error on one line, and it
changed nothing, read from the database file with plain sqlite3 and from the disk."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

from hypothesis import HealthCheck, currently_in_test_context, event, settings

from docchat.errors import DocchatError


def examples(count: int) -> settings:
    """`count` examples, no deadline (two shared cores), and no example database in the checkout."""
    return settings(max_examples=count, deadline=None, database=None, print_blob=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def one_line(error: BaseException) -> str:
    """The message of a refusal, checked to be docchat's own error on one non-blank line."""
    assert isinstance(error, DocchatError), f"{type(error).__name__} escaped: {error}"
    message = str(error)
    assert message.strip(), f"{type(error).__name__} with no message"
    assert "\n" not in message and "\r" not in message, f"more than one line: {message!r}"
    assert "Traceback" not in message
    return message


def outcome(label: str) -> None:
    """Tallies what became of an example, for `--hypothesis-show-statistics` (refusals by
    their first words, so a property that refuses everything shows it)."""
    if currently_in_test_context():
        event(label)


def refusal(message: str) -> str:
    """A refusal's reason in its first words, without the file name it starts with."""
    reason = message.rsplit('" ', 1)[-1] if message.startswith('"') else message.split(": ", 1)[-1]
    return "refused: " + " ".join(re.sub(r"[0-9]+", "N", re.sub(r"U\+[0-9A-F]+", "U+XXXX", reason)).split()[:5])


def database_rows(data_dir: Path) -> dict[str, list[tuple]]:
    """Every row of every table (full-text shadow tables included), in a stable order."""
    with closing(sqlite3.connect(Path(data_dir) / "docchat.db")) as db:
        tables = [name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name")]
        return {table: sorted(db.execute(f'SELECT * FROM "{table}"').fetchall(), key=repr) for table in tables}


def files_under(folder: Path) -> set[str]:
    """Every file below `folder`, as paths relative to it."""
    return {str(path.relative_to(folder)) for path in Path(folder).rglob("*") if path.is_file()}
