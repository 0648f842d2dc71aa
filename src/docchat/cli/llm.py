"""`docchat llm command` and `docchat llm serve`: the vLLM server's command line, or the server run."""

from __future__ import annotations

import os
import subprocess
import sys

from docchat.cli.common import embedded_server, load_settings
from docchat.errors import DocchatError


def add_commands(commands) -> None:
    llm = commands.add_parser("llm", help="the vLLM server: its command line, or run it")
    llm_verbs = llm.add_subparsers(title="verbs", metavar="VERB", required=True)
    for verb, handler, text in (
            ("command", llm_command, "print the exact server command line"),
            ("serve", llm_serve, "run the server in the foreground")):
        sub = llm_verbs.add_parser(verb, help=text)
        sub.add_argument("--profile", choices=["cpu", "gpu"], default="cpu")
        sub.add_argument("--gpu-memory-gib", type=float, help="the GPU's memory, when it cannot be detected")
        sub.set_defaults(handler=handler)


def llm_command(args) -> None:
    print(" ".join(_llm_command_line(args, load_settings())))


def llm_serve(args) -> int:
    from docchat.llm.launcher import stop_group
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
