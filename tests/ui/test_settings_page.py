"""The last backup on the Settings page (AppTest), as `docchat doctor` reports it."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from docchat.bootstrap import build_backup

ROOT = Path(__file__).resolve().parents[2]


def _last_backup_line() -> str:
    page = AppTest.from_file(str(ROOT / "pages" / "2_Settings.py"), default_timeout=30).run()
    [line] = [text.value for text in page.text if text.value.startswith("Last backup:")]
    return line


def test_the_settings_page_says_no_backup_was_made_before_the_first(services):
    assert _last_backup_line() == "Last backup: never"


def test_the_settings_page_says_when_the_last_backup_was_made_and_to_which_file(services, tmp_path):
    conversation = services.conversations.create("Hartley family trust agreement")
    services.messages.append_message(conversation.id, "user", "Who is the trustee?")
    archive = tmp_path / "friday.zip"

    report = build_backup(services.settings).backup(archive)

    assert _last_backup_line() == f"Last backup: just now ({report.made_at:%Y-%m-%d %H:%M} UTC), to {archive}"


@pytest.mark.parametrize("name", ["documents_only", "quoted_answers"])
def test_a_default_for_every_conversation_is_turned_on_from_the_preferences(services, monkeypatch, name):
    import json

    monkeypatch.delenv(f"DOCCHAT_{name.upper()}", raising=False)
    page = AppTest.from_file(str(ROOT / "pages" / "2_Settings.py"), default_timeout=30).run()

    page.toggle(key=f"preferences_{name}").set_value(True)
    page.button[[b.label for b in page.button].index("Save preferences")].click().run()

    saved = json.loads((services.settings.resolved_data_dir / "settings.json").read_text())
    (other,) = {"documents_only", "quoted_answers"} - {name}
    assert (saved[name], saved[other]) == (True, False)
    assert any(s.value == "Preferences saved and applied." for s in page.success)
