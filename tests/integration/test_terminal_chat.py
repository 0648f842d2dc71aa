"""`docchat chat` in a pseudo-terminal, typed at as a person would.

The real command runs over a temporary data dir; its answers come from the fault tier's fake
OpenAI-compatible server, word for word the same every time, and slow on request so that a
Ctrl-C lands in the middle of one. What was stored is read afterwards through the services.
Each session costs about 3 s of start-up, so each test starts one; the last one also starts
`docchat api` and chats with it over --url.
"""

from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pexpect
import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.domain import Role, Status

from tests.fault.fake_server import ANSWER, SLOW_PIECES
from tests.integration.sample_data import TRUST_TURNS, trust_conversation
from tests.integration.sample_documents import TRUST_PASSAGES, markdown
from tests.network import free_port

pytestmark = pytest.mark.timeout(120)

# prompt_toolkit draws the prompt with cursor moves around its trailing space.
PROMPT = "docchat>"
FULL_ANSWER = "".join(ANSWER)
QUESTION = "When is the Determination Date for the Harbour Family Trust?"
FOLLOW_UP = "And when does the Distribution Date fall?"
TOKEN = "harbour-street-7"


@pytest.fixture
def terminal(data_dir, tmp_path, fake_llm):
    """Starts `docchat chat ARGS...` in a pseudo-terminal and waits for its first prompt."""
    command = str(Path(sys.executable).with_name("docchat"))
    started: list[pexpect.spawn] = []

    def spawn(*args: str, llm_url: str | None = None, sigint_ignored: bool = False) -> pexpect.spawn:
        env = {**environment(data_dir, llm_url or fake_llm.url + "/v1"), "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
        # As a shell starts a script's background job (nohup, `&`): children inherit SIGINT ignored.
        ignore_sigint = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None
        child = pexpect.spawn(command, ["chat", *args], env=env, cwd=str(tmp_path), dimensions=(40, 120),
                              encoding="utf-8", timeout=30, preexec_fn=ignore_sigint)
        child.logfile_read = io.StringIO()
        started.append(child)
        # Drawn once the terminal is in raw mode: keys sent from now on reach the line editor.
        child.expect(PROMPT)
        return child

    yield spawn
    for child in started:
        if child.isalive():
            child.terminate(force=True)


def environment(data_dir, llm_url: str) -> dict:
    env = {
        **os.environ, "DOCCHAT_DATA_DIR": str(data_dir), "DOCCHAT_LLM_URL": llm_url,
        # Only answers reach the fake server: no rewriting, condensing or titling calls.
        "DOCCHAT_CONTEXT_PROGRAMS": "false",
    }
    env.pop("DOCCHAT_DATABASE_URL", None)
    return env


@pytest.fixture
def running_api(data_dir, fake_llm):
    """`docchat api` over the same data dir and fake LLM, with a token; stopped by its own handle."""
    port = free_port()
    env = {**environment(data_dir, fake_llm.url + "/v1"), "DOCCHAT_API_TOKEN": TOKEN}
    process = subprocess.Popen([str(Path(sys.executable).with_name("docchat")), "api", "--port", str(port)],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not _serving(url):
            assert process.poll() is None and time.monotonic() < deadline, "docchat api did not start"
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=15)


def _serving(url: str) -> bool:
    try:
        return httpx.get(f"{url}/docs", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def ask(child: pexpect.spawn, question: str, *, expect: str = FULL_ANSWER) -> None:
    child.sendline(question)
    child.expect_exact(expect)
    child.expect(PROMPT)


def leave(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return child.exitstatus


def stored(data_dir):
    return build_services(Settings(data_dir=data_dir), contact_llm=False)


def screen(child: pexpect.spawn) -> str:
    return child.logfile_read.getvalue()


def test_an_answer_streams_into_the_terminal_and_is_stored_complete(terminal, data_dir):
    child = terminal()

    ask(child, QUESTION)
    child.sendline("exit")

    assert leave(child) == 0
    services = stored(data_dir)
    (conversation,) = services.conversations.list()
    question, answer = services.messages.history(conversation.id)
    assert (question.content, answer.content, answer.status) == (QUESTION, FULL_ANSWER, Status.COMPLETE)


@pytest.mark.parametrize("sigint_ignored", [False, True], ids=["from-a-shell", "started-with-sigint-ignored"])
def test_ctrl_c_mid_answer_stops_it_keeps_it_as_interrupted_and_returns_to_the_prompt(
        terminal, data_dir, fake_llm, sigint_ignored):
    fake_llm.mode = "slow"
    child = terminal(sigint_ignored=sigint_ignored)
    child.sendline(QUESTION)
    child.expect_exact("".join(SLOW_PIECES[:3]))

    child.sendintr()
    child.expect_exact("interrupted")
    child.expect(PROMPT)
    assert child.isalive()
    assert fake_llm.hung_up.wait(5), "the LLM server was never told the answer was abandoned"
    child.sendcontrol("d")

    assert leave(child) == 0
    services = stored(data_dir)
    (conversation,) = services.conversations.list()
    _, answer = services.messages.history(conversation.id)
    assert answer.status is Status.INTERRUPTED
    assert answer.content.startswith("".join(SLOW_PIECES[:3]))
    assert answer.content != "".join(SLOW_PIECES)


def test_ctrl_c_at_the_prompt_drops_the_line_and_stays_then_ctrl_d_leaves_with_code_0(terminal, data_dir, fake_llm):
    child = terminal()
    child.send("a question I changed my mind about")
    child.expect_exact("changed my mind about")

    child.sendintr()
    # Only once the next prompt is up: keys typed before it may be read, and dropped, with the line.
    child.expect_exact("^C")
    child.expect(PROMPT)
    child.sendcontrol("d")

    assert leave(child) == 0
    assert fake_llm.attempts == 0
    assert stored(data_dir).conversations.list() == []


def test_clear_makes_the_next_question_start_a_second_conversation(terminal, data_dir):
    child = terminal()
    ask(child, QUESTION)

    child.sendline("clear")
    child.expect(PROMPT)
    ask(child, FOLLOW_UP)
    child.sendline("quit")

    assert leave(child) == 0
    services = stored(data_dir)
    firsts = sorted(services.messages.history(c.id)[0].content for c in services.conversations.list())
    assert firsts == sorted([QUESTION, FOLLOW_UP])


def test_a_stateless_chat_sends_its_history_with_each_question_and_stores_nothing(terminal, data_dir, fake_llm):
    child = terminal("--stateless")

    ask(child, QUESTION)
    ask(child, FOLLOW_UP)
    child.sendline("exit")

    assert leave(child) == 0
    assert stored(data_dir).conversations.list() == []
    second = fake_llm.requests[1]["messages"]
    assert [(m["role"], m["content"]) for m in second[-3:-1]] == [("user", QUESTION), ("assistant", FULL_ANSWER)]
    assert second[-1]["content"].endswith(FOLLOW_UP)


def test_sources_after_an_answer_show_the_cited_document_and_passage(terminal, data_dir, library):
    library.ingestion.ingest("harbour-trust.md", markdown(TRUST_PASSAGES))
    library.index.close()  # one process at a time holds the index
    child = terminal()
    child.sendline(QUESTION)
    # On a fresh install the answer is quoted while the citation gate learns the model, unseen.
    child.expect_exact("[Quoted from your documents.]")
    # Numbered as the prompt numbered the document's parts; the definition ranks first.
    child.expect_exact("harbour-trust.md 1.2 Determination Date")
    child.expect(PROMPT)

    child.sendline("/sources")
    child.expect_exact("harbour-trust.md, ")
    child.expect_exact("The Determination Date is the last Business Day")
    child.expect(PROMPT)
    child.sendline("exit")

    assert leave(child) == 0


def test_export_md_writes_the_current_conversation_to_the_file(terminal, tmp_path):
    child = terminal()
    ask(child, QUESTION)

    child.sendline("/export md harbour-trust.md")
    child.expect_exact("wrote harbour-trust.md")
    child.expect(PROMPT)
    child.sendline("exit")

    assert leave(child) == 0
    written = (tmp_path / "harbour-trust.md").read_text()
    assert QUESTION in written and FULL_ANSWER in written


def test_open_continues_a_stored_conversation_named_by_the_start_of_its_id(terminal, data_dir, services):
    trust_id = trust_conversation(services)
    child = terminal()

    child.sendline(f"/open {trust_id[:8]}")
    child.expect_exact("Hartley family trust agreement")
    child.expect_exact(TRUST_TURNS[-1][1])
    child.expect(PROMPT)
    ask(child, FOLLOW_UP)
    child.sendline("exit")

    assert leave(child) == 0
    history = stored(data_dir).messages.history(trust_id)
    assert [(m.role, m.content) for m in history[-2:]] == [(Role.USER, FOLLOW_UP), (Role.ASSISTANT, FULL_ANSWER)]


def test_with_the_llm_down_a_question_gets_one_error_line_and_the_session_goes_on(terminal, data_dir):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    child = terminal(llm_url=f"http://127.0.0.1:{closed}/v1")

    child.sendline(QUESTION)
    child.expect_exact("docchat: the LLM server is not running")
    child.expect(PROMPT)
    child.sendline("/list")
    child.expect_exact("When is the Determination Date")  # the question was kept
    child.expect(PROMPT)
    child.sendline("exit")

    assert leave(child) == 0
    assert "Traceback" not in screen(child)
    assert screen(child).count("docchat: ") == 1


def test_an_unknown_command_is_one_line_and_the_session_goes_on(terminal):
    child = terminal()

    child.sendline("/summarise")
    child.expect_exact("unknown command /summarise; /help lists them")
    child.expect(PROMPT)
    child.sendline("/help")
    child.expect_exact("/export md|json FILE")
    child.expect(PROMPT)
    child.sendline("exit")

    assert leave(child) == 0


def test_over_the_http_api_answers_stream_and_ctrl_c_leaves_the_answer_interrupted_on_the_server(
        terminal, running_api, data_dir, fake_llm):
    child = terminal("--url", running_api, "--token", TOKEN)
    ask(child, QUESTION)
    fake_llm.mode = "slow"
    child.sendline(FOLLOW_UP)
    child.expect_exact("".join(SLOW_PIECES[:3]))

    child.sendintr()
    child.expect_exact("interrupted")
    child.expect(PROMPT)
    child.sendline("exit")

    assert leave(child) == 0
    assert fake_llm.hung_up.wait(5)
    services = stored(data_dir)
    (conversation,) = services.conversations.list()

    def statuses():
        return [(m.role, m.status) for m in services.messages.history(conversation.id)]

    # The server settles the answer a moment after it hangs up on the LLM.
    deadline = time.monotonic() + 5
    while statuses()[-1][1] is Status.STREAMING and time.monotonic() < deadline:
        time.sleep(0.1)
    assert statuses() == [(Role.USER, Status.COMPLETE), (Role.ASSISTANT, Status.COMPLETE),
                          (Role.USER, Status.COMPLETE), (Role.ASSISTANT, Status.INTERRUPTED)]
