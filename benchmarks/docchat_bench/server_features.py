"""What a model server supports, found by asking it: the feature table of `docchat bench servers`.

Each probe is a real request. A sampling option counts as taken only when it changes the answer:
a server may accept a field it does not know and ignore it (llama-cpp-python's server ignores
`repetition_penalty`, its own name being `repeat_penalty`). So each option is sent where it must
show: a strong penalty on a greedy answer, top_k 1 on a hot, seeded sample (which then equals
the greedy answer). A citation pattern (docchat.context.citing) counts as taken only when the
answer keeps to it: a question about the sea, whose sentences a model never ends with [1] or [2]
on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from docchat.context.citing import citing, matches
from docchat.context.citing_rest import rest
from docchat.llm.discovery import auth, root_url
from docchat.llm.profiles import CPU_MODEL_NAME

FOREIGN_ORIGIN = "http://pages.example"
PROBE_QUESTION = [{"role": "user", "content": "Write three sentences about the sea and its tides."}]
PROBE_TOKENS = 24
PATTERN_NUMBERS = (1, 2)


@dataclass(frozen=True)
class Endpoint:
    name: str
    url: str
    api_key: str | None


def probe_features(endpoint: Endpoint) -> dict[str, str]:
    """Feature -> what the server did, in a few words."""
    with httpx.Client(timeout=120, headers=auth(endpoint.api_key)) as client:
        root = root_url(endpoint.url)
        models = client.get(f"{endpoint.url}/models").json()["data"][0]
        answer = client.post(f"{endpoint.url}/chat/completions", json=_body()).json()
        return {
            "window in /v1/models": str(models["max_model_len"]) if models.get("max_model_len") else "not reported",
            "/health": _status(client.get(f"{root}/health")),
            "/metrics (prefix-cache counters)": _metrics(client.get(f"{root}/metrics")),
            "tokenize a chat (vLLM's /tokenize)": _tokenize(client.post(
                f"{root}/tokenize", json={"model": CPU_MODEL_NAME, "messages": PROBE_QUESTION,
                                          "add_generation_prompt": True})),
            "tokenize text (/extras/tokenize/count)": _tokenize(client.post(
                f"{root}/extras/tokenize/count", json={"input": PROBE_QUESTION[0]["content"]})),
            "usage in a stream (include_usage)": _stream_usage(client, endpoint.url),
            "cached tokens in usage": _cached_tokens(answer.get("usage") or {}),
            "repetition_penalty": _repetition_penalty(client, endpoint.url, answer, "repetition_penalty"),
            "repeat_penalty (llama.cpp's name)": _repetition_penalty(client, endpoint.url, answer, "repeat_penalty"),
            "top_k": _top_k(client, endpoint.url, answer),
            "citation pattern as structured_outputs (vLLM)": _pattern(client, endpoint.url, "structured_outputs"),
            "citation pattern as a grammar (llama.cpp)": _pattern(client, endpoint.url, "grammar"),
            "/v1 without the key": _status(httpx.get(f"{endpoint.url}/models", timeout=30)),
            "CORS for a foreign page": _cors(client, endpoint.url),
        }


def _body(**options) -> dict:
    return {"model": CPU_MODEL_NAME, "messages": PROBE_QUESTION, "max_tokens": PROBE_TOKENS,
            "temperature": 0.0, **options}


def _text(client: httpx.Client, url: str, **options) -> str:
    response = client.post(f"{url}/chat/completions", json=_body(**options))
    response.raise_for_status()
    return response.json()["choices"][0]["message"]["content"]


def _status(response: httpx.Response) -> str:
    return "yes (200)" if response.status_code == 200 else f"no ({response.status_code})"


def _metrics(response: httpx.Response) -> str:
    if response.status_code != 200:
        return f"no ({response.status_code})"
    return "yes" if "prefix_cache_hits" in response.text else "yes, without prefix-cache counters"


def _tokenize(response: httpx.Response) -> str:
    if response.status_code != 200:
        return f"no ({response.status_code})"
    return f"yes ({response.json()['count']} tokens)"


def _stream_usage(client: httpx.Client, url: str) -> str:
    body = _body(stream=True, stream_options={"include_usage": True})
    with client.stream("POST", f"{url}/chat/completions", json=body) as response:
        if response.status_code != 200:
            return f"refused ({response.status_code})"
        lines = list(response.iter_lines())
    return "yes" if any('"usage":{' in line.replace(" ", "") for line in lines) else "no"


def _cached_tokens(usage: dict) -> str:
    details = usage.get("prompt_tokens_details") or {}
    return "yes" if "cached_tokens" in details else "not reported"


def _repetition_penalty(client: httpx.Client, url: str, greedy: dict, name: str) -> str:
    response = client.post(f"{url}/chat/completions", json=_body(**{name: 2.0}))
    if response.status_code != 200:
        return f"refused ({response.status_code})"
    changed = response.json()["choices"][0]["message"]["content"] != greedy["choices"][0]["message"]["content"]
    return "taken" if changed else "accepted, no effect"


def _top_k(client: httpx.Client, url: str, greedy: dict) -> str:
    hot = {"temperature": 1.5, "seed": 11}
    response = client.post(f"{url}/chat/completions", json=_body(**hot, top_k=1))
    if response.status_code != 200:
        return f"refused ({response.status_code})"
    same = response.json()["choices"][0]["message"]["content"] == greedy["choices"][0]["message"]["content"]
    unlimited = _text(client, url, **hot)
    return "taken" if same and unlimited != greedy["choices"][0]["message"]["content"] else "no effect seen"


def _pattern(client: httpx.Client, url: str, field: str) -> str:
    constraint = citing(PATTERN_NUMBERS)
    carried = {"structured_outputs": {"regex": constraint.regex}} if field == "structured_outputs" else \
        {"grammar": constraint.grammar}
    response = client.post(f"{url}/chat/completions", json=_body(**carried))
    if response.status_code != 200:
        return f"refused ({response.status_code})"
    [choice] = response.json()["choices"]
    text = choice["message"]["content"]
    # Cut at PROBE_TOKENS, an answer under the pattern is one the pattern can still go on with.
    kept = rest(text, PATTERN_NUMBERS) is not None if choice.get("finish_reason") == "length" else \
        matches(text, constraint)
    return "taken" if kept else "accepted, no effect"


def _cors(client: httpx.Client, url: str) -> str:
    allowed = client.get(f"{url}/models", headers={"Origin": FOREIGN_ORIGIN}).headers.get("access-control-allow-origin")
    return f"allowed ({allowed})" if allowed else "not allowed"
