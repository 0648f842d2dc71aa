"""The key of the LLM server docchat starts: new at each start, readable by the user alone, and
read by docchat's processes at each use, so a restarted server is still reached."""

from __future__ import annotations

import stat

from docchat.config import Settings
from docchat.llm.profiles import start_advice
from docchat.llm.server_key import llm_key, new_key, read_key


def test_each_start_draws_a_new_key_that_only_the_user_can_read(tmp_path):
    path = tmp_path / "data" / "llm-server.key"

    first, second = new_key(path), new_key(path)

    assert first != second and len(second) >= 40
    assert read_key(path) == second
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_docchat_reaches_the_server_it_starts_with_the_key_of_its_latest_start(tmp_path, monkeypatch):
    monkeypatch.delenv("DOCCHAT_LLM_URL", raising=False)
    monkeypatch.delenv("DOCCHAT_LLM_API_KEY", raising=False)
    settings = Settings(data_dir=tmp_path / "data")
    key = llm_key(settings)

    assert key() is None  # never started: no key to send
    new_key(settings.llm_key_path)
    restarted = new_key(settings.llm_key_path)
    assert key() == restarted


def test_a_server_named_by_address_gets_the_key_given_for_it(tmp_path):
    new_key(Settings(data_dir=tmp_path / "data").llm_key_path)

    given = Settings(data_dir=tmp_path / "data", llm_url="http://127.0.0.1:1234/v1", llm_api_key="lm-studio-key")
    none_given = Settings(data_dir=tmp_path / "data", llm_url="http://127.0.0.1:1234/v1", llm_api_key=None)

    assert llm_key(given)() == "lm-studio-key"
    assert llm_key(none_given)() is None  # docchat's own server's key goes to no other server


def test_the_server_docchat_started_named_by_its_address_still_gets_its_key(tmp_path):
    # As the README's gpu profile runs: `docchat llm serve`, then DOCCHAT_LLM_URL set to it.
    data = tmp_path / "data"
    started = new_key(Settings(data_dir=data).llm_key_path)

    named = Settings(data_dir=data, llm_url="http://127.0.0.1:8000/v1/", llm_api_key=None)

    assert llm_key(named)() == started


def test_an_address_on_this_machine_decides_where_docchat_serves_and_where_it_looks(tmp_path):
    data = tmp_path / "data"
    # `DOCCHAT_LLM_URL=http://127.0.0.1:8100/v1 docchat llm serve`, then the page with the same address.
    served = Settings(data_dir=data, llm_url="http://127.0.0.1:8100/v1")
    started = new_key(served.llm_key_path)

    assert served.served_port == 8100 and served.embedded_url == "http://127.0.0.1:8100/v1"
    assert llm_key(Settings(data_dir=data, llm_url="http://localhost:8100/v1"))() == started
    assert llm_key(Settings(data_dir=data, llm_url="http://127.0.0.1:11434/v1"))() is None  # not docchat's


def test_a_server_on_another_machine_is_only_connected_to(tmp_path):
    elsewhere = Settings(data_dir=tmp_path / "data", llm_url="http://gpu-box.lan:8000/v1", llm_port=8000)

    assert not elsewhere.llm_on_this_machine and elsewhere.served_port == 8000
    assert start_advice(elsewhere) == ("start the LLM server at http://gpu-box.lan:8000/v1 "
                                       "(docchat only connects to it)")
