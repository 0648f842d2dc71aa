"""`docchat run`, `docchat ask` and `docchat llm`: the commands that talk to the LLM."""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from docchat import CHECKOUT
from docchat.exchange import citation_wire
from docchat.cli.api import serve_api_beside_page
from docchat.cli.common import embedded_server, load_settings, open_services, print_json, say_upgraded
from docchat.errors import DocchatError
from docchat.llm.launcher import stop_group
from docchat.llm.watchdog import Watchdog
from docchat.text import one_line


def run_app(args) -> int:
    """The page and the HTTP API in this one process, sharing one set of services, and the
    embedded LLM server starting beside them (unless DOCCHAT_LLM_URL names a server that is
    there, or one elsewhere); Ctrl-C stops them all."""
    app = CHECKOUT / "app.py"
    if not app.exists():
        raise DocchatError("app.py not found: run docchat from a checkout (make run)")
    # `kill -USR1 <pid>` prints where each thread of a `docchat run` that hangs is (to its terminal).
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    settings = load_settings()
    _upgrade_first(settings)
    server = api = watchdog = watcher = None
    try:
        # Inside the `try`: a Ctrl-C (or SIGTERM) while the server starts stops it too.
        if _serves_its_own(settings) and not args.no_llm:
            if settings.llm_url:
                print(f"nothing answers at {settings.llm_url}: starting docchat's own LLM server there")
            server = embedded_server(settings)
            if not server.already_running():
                # On a thread, so the page and the API serve at once and say what it is doing.
                watchdog = Watchdog(server, say=lambda line: print(line, flush=True)).start(first_launch=True)
        elif settings.llm_url:
            print(f"using the LLM server at {settings.llm_url}")
        if not args.no_api:
            api = serve_api_beside_page(args.api_port)
            print(f"the API: http://127.0.0.1:{args.api_port} (docs: http://127.0.0.1:{args.api_port}/docs)")
        watcher = _watch_followed_folders()
        print(f"the page: http://127.0.0.1:{args.port}", flush=True)
        return _serve_page(app, args.port, settings.allowed_hosts)
    except KeyboardInterrupt:
        return 130
    finally:
        if watcher is not None:
            watcher.stop()
        if api is not None:
            print("stopping the API")
            api.stop()
        if watchdog is not None:
            watchdog.stop()
        if server is not None:
            print("stopping the LLM server")
            server.stop()


def _upgrade_first(settings) -> None:
    """The database brought to this version before the LLM server starts: a refused or failed
    upgrade ends `run` with its one line and nothing started; the page's services then find it
    up to date."""
    from docchat.bootstrap.database import upgraded_database

    say_upgraded(upgraded_database(settings))


def _watch_followed_folders():
    """The followed folders, watched in this process (it holds the document index), over the
    services the page and the API share (the page may rebuild them: each sync takes the current)."""
    from docchat import shared
    from docchat.documents.folders.watcher import FolderWatcher

    return FolderWatcher(lambda: shared.services().folders).start()


def _serves_its_own(settings) -> bool:
    """One address decides where docchat looks and serves: with none given, or one on this
    machine where nothing listens, docchat starts its own server (the cpu profile's) there.
    Any server already listening, vLLM or not, is used as it is."""
    from docchat.llm.discovery import listening

    return settings.llm_profile == "cpu" and settings.llm_on_this_machine and (
        settings.llm_url is None or not listening(settings.llm_url))


def _serve_page(app: Path, port: int, extra_hosts: list[str]) -> int:
    """Streamlit in this process (not a child): the page's script runs in threads here, beside
    the API, and both use `docchat.shared`'s services."""
    from docchat.cli.page import serve_page

    # Streamlit reads .streamlit/config.toml (the theme) from the working directory.
    os.chdir(CHECKOUT)
    serve_page(app, port, extra_hosts)
    return 0


def ask(args) -> int:
    services = open_services(llm=True)
    if args.history:
        return _ask_stateless(services, args)
    conversation_id = services.conversations.resolve_id(args.conversation) if args.conversation else None
    turn = services.chat.answer(conversation_id, args.question)
    try:
        if args.json:
            turn.text()
        else:
            for delta in turn:
                sys.stdout.write(delta)
                sys.stdout.flush()
            sys.stdout.write("\n")
    except DocchatError:
        if args.json:
            print_json(_turn_json(turn, services))
        raise
    if args.json:
        print_json(_turn_json(turn, services))
    services.chat.wait_for_background(services.settings.program_timeout_s)
    return 0


def _ask_stateless(services, args) -> int:
    turn = services.stateless.answer(_history(args.history), args.question)
    if args.json:
        turn.text()
        print_json({**_turn_json(turn, services), "summary": turn.summary})
        return 0
    for delta in turn:
        sys.stdout.write(delta)
        sys.stdout.flush()
    sys.stdout.write("\n")
    return 0


def _history(path: str):
    """The JSON in the --history file, or one line saying why there is none to read."""
    shown = one_line(path)
    try:
        text = Path(path).read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DocchatError(f"{shown}: not UTF-8 text, so not a JSON history") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise DocchatError(f"{shown}: not valid JSON: {error.msg}") from None
    except RecursionError:
        raise DocchatError(f"{shown}: nested too deeply to be a history of messages") from None
    except ValueError:  # a number past Python's 4,300 digits
        raise DocchatError(f"{shown}: not a history docchat can read: a number in it is too long") from None


def _turn_json(turn, services) -> dict:
    """The turn as `ask --json` prints it, stored or stateless (then conversation_id is null)."""
    answer = turn.answer
    return {
        "conversation_id": turn.conversation_id,
        "question": turn.question.content,
        "answer": answer.content if answer else None,
        "status": answer.status.value if answer else None,
        "error": answer.error if answer else None,
        "model": answer.model if answer else None,
        "usage": turn.usage,
        "budget": turn.budget.as_dict() if turn.budget else None,
        # How the documents reached the model: "documents" (whole, in the cached prefix),
        # "passages" (retrieved into the question's turn) or "none".
        "mode": turn.budget.mode if turn.budget else None,
        "rewritten_query": turn.stats.rewritten_query if turn.stats else None,
        "memory": turn.stats.as_dict() if turn.stats else None,
        "session": turn.session.as_dict() if turn.session else None,
        # The full text of every chunk the model was given, numbered as the prompt numbers them.
        "citations": [c.as_dict() for c in answer.citations] if answer else [],
        # Whether the documents in scope held the answer: found, weak or not found (null: none searched).
        "evidence": turn.evidence.as_dict() if turn.evidence else None,
        # The passages the answer cites (its [n] marks in order of first mention, or those docchat
        # attributed its sentences to) and how each cited sentence was checked against them.
        "cited": [c.as_dict() for c in answer.cited] if answer else [],
        "citation_check": citation_wire.check_to_api(answer.grounding) if answer else None,
        "counter": services.conversations.counter.id,
    }


def llm_command(args) -> None:
    print(" ".join(_llm_command_line(args, load_settings())))


def llm_serve(args) -> int:
    from docchat.llm.server_key import new_key

    settings = load_settings()
    command = _llm_command_line(args, settings)
    print(" ".join(command), file=sys.stderr)
    # The key in the environment, not on the command line (which `ps` shows to every user), and
    # in the data dir, where the page and the commands find it.
    env = {**os.environ, "VLLM_API_KEY": new_key(settings.llm_key_path)}
    if args.profile == "cpu":
        server = embedded_server(settings)
        server.ensure_model(lambda line: print(line, file=sys.stderr))
        from docchat.llm.profiles import CPU_ENVIRONMENT

        env.update(CPU_ENVIRONMENT)
    try:
        # Its own session, stopped as a group: vLLM's engine processes go with it.
        process = subprocess.Popen(command, env=env, start_new_session=True)
    except FileNotFoundError:
        raise DocchatError(f"{command[0]} is not installed here; the gpu profile needs vLLM's GPU build") from None
    try:
        return process.wait()
    except KeyboardInterrupt:
        return 130
    finally:
        stop_group(process)


def _llm_command_line(args, settings) -> list[str]:
    from docchat.llm import profiles

    if args.profile == "cpu":
        return embedded_server(settings).command()
    gib = args.gpu_memory_gib or _detected_gpu_gib()
    if gib is None:
        print("no GPU found to measure; assuming 262,144 tokens fit (give --gpu-memory-gib to check)",
              file=sys.stderr)
        return profiles.gpu_command(port=settings.served_port)
    fit = profiles.gpu_fit(gib)
    print(fit.explain(), file=sys.stderr)
    if fit.max_model_len < profiles.CONTEXT_STEP:
        raise DocchatError(f"a {gib:g} GiB GPU cannot hold Qwen3-4B-Instruct-2507 with an fp8 KV cache")
    return profiles.gpu_command(fit.max_model_len, port=settings.served_port)


def _detected_gpu_gib() -> float | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    values = [float(line) for line in out.stdout.split() if line.strip().replace(".", "", 1).isdigit()]
    return values[0] / 1024 if out.returncode == 0 and values else None
