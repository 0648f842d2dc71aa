"""The Settings page over a model server that is not vLLM (Ollama's recorded responses): it names
the server, says the window is assumed and how to set it, shows no prefix-cache figure it does
not have, and offers the models the server serves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.fault.recorded_server import RecordedServer

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def ollama(data_dir, monkeypatch):
    with RecordedServer("ollama") as server:
        monkeypatch.setenv("DOCCHAT_LLM_URL", server.url + "/v1")
        monkeypatch.setenv("DOCCHAT_CONTEXT_PROGRAMS", "false")
        for name in ("DOCCHAT_LLM_MODEL", "DOCCHAT_LLM_WINDOW"):
            monkeypatch.delenv(name, raising=False)
        yield server


def settings_page() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "2_Settings.py"), default_timeout=60).run()


def metric(page: AppTest, label: str) -> str:
    return next(m.value for m in page.metric if m.label == label)


def save(page: AppTest) -> AppTest:
    return page.button[[b.label for b in page.button].index("Save preferences")].click().run()


def test_the_page_names_the_server_and_says_its_window_is_assumed(ollama):
    page = settings_page()

    assert [s.value for s in page.success] == [f"Connected to qwen3:4b on Ollama at {ollama.url}/v1"]
    assert metric(page, "Window") == "4,096"
    assert metric(page, "Prefix-cache hits") == "not reported"
    [warning] = [w.value for w in page.warning if w.value.startswith("Window:")]
    assert warning.startswith("Window: 4,096 tokens, assumed: Ollama does not say the context it gives the model")
    assert "DOCCHAT_LLM_WINDOW" in warning
    assert ("Sampling: temperature, top_p; not taken by this server, so not sent: top_k, repetition penalty. "
            "Cannot continue an answer cut at the limit.") in [c.value for c in page.caption]


def test_the_window_set_on_the_page_is_used_and_said_to_be_yours(ollama, data_dir):
    page = settings_page()

    page.number_input(key="preferences_llm_window").set_value(32_768)
    page = save(page)

    assert json.loads((data_dir / "settings.json").read_text())["llm_window"] == 32_768
    assert metric(page, "Window") == "32,768"
    assert ("Window: 32,768 tokens, your setting (Ollama does not say the context it gives the model until it "
            "is loaded).") in [c.value for c in page.caption]
    assert not [w for w in page.warning if w.value.startswith("Window:")]


def test_a_model_chosen_among_those_served_is_the_one_asked(ollama, data_dir):
    page = settings_page()
    choice = page.selectbox(key="preferences_llm_model")
    assert choice.options == ["qwen3:4b", "llama3.2:latest"] and choice.value == "qwen3:4b"

    choice.set_value("llama3.2:latest")
    page = save(page)

    assert json.loads((data_dir / "settings.json").read_text())["llm_model"] == "llama3.2:latest"
    assert [s.value for s in page.success][0] == f"Connected to llama3.2:latest on Ollama at {ollama.url}/v1"
