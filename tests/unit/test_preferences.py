"""Settings saved from the Settings page: kept in the data directory, checked before they are
kept, and always beaten by an environment variable."""

import json

import pytest

from docchat import preferences
from docchat.config import Settings
from docchat.errors import InvalidInput


@pytest.fixture
def settings(tmp_path, monkeypatch):
    for name in preferences.EDITABLE:
        monkeypatch.delenv(f"DOCCHAT_{name.upper()}", raising=False)
    return Settings(data_dir=tmp_path)


def test_saved_preferences_apply_the_next_time_settings_are_read(settings, tmp_path):
    preferences.save(settings, {"llm_url": "http://127.0.0.1:8123/v1", "max_tokens": 1024, "cap_chunks": 0.5})

    loaded = preferences.load(data_dir=tmp_path)

    assert (loaded.llm_url, loaded.max_tokens, loaded.cap_chunks) == ("http://127.0.0.1:8123/v1", 1024, 0.5)
    assert json.loads((tmp_path / "settings.json").read_text())["max_tokens"] == 1024


def test_an_environment_variable_wins_and_cannot_be_changed_from_the_page(settings, tmp_path, monkeypatch):
    preferences.save(settings, {"max_tokens": 1024})
    monkeypatch.setenv("DOCCHAT_MAX_TOKENS", "300")

    assert preferences.load(data_dir=tmp_path).max_tokens == 300
    with pytest.raises(InvalidInput, match="set by the environment"):
        preferences.save(settings, {"max_tokens": 2048})


def test_a_bad_value_is_refused_with_its_name_and_nothing_is_written(settings, tmp_path):
    with pytest.raises(InvalidInput, match="cap_chunks"):
        preferences.save(settings, {"cap_chunks": 1.5})

    assert not (tmp_path / "settings.json").exists()


def test_none_puts_a_setting_back_to_its_default(settings, tmp_path):
    preferences.save(settings, {"llm_url": "http://127.0.0.1:8123/v1", "max_tokens": 1024})
    preferences.save(settings, {"llm_url": None})

    loaded = preferences.load(data_dir=tmp_path)
    assert (loaded.llm_url, loaded.max_tokens) == (None, 1024)


def test_a_damaged_or_outdated_file_is_skipped_not_fatal(settings, tmp_path):
    (tmp_path / "settings.json").write_text('{"max_tokens": "many", "cap_chunks": 0.4, "data_dir": "/elsewhere"}')

    loaded = preferences.load(data_dir=tmp_path)

    assert (loaded.max_tokens, loaded.cap_chunks, loaded.data_dir) == (None, 0.4, tmp_path)
    (tmp_path / "settings.json").write_text("{not json")
    assert preferences.load(data_dir=tmp_path).cap_chunks == Settings().cap_chunks


def test_documents_only_is_a_default_the_settings_page_keeps(settings, tmp_path):
    preferences.save(settings, {"documents_only": True})

    assert preferences.load(data_dir=tmp_path).documents_only is True
