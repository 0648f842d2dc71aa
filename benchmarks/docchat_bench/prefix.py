"""`docchat bench prefix`: how much of each prompt vLLM's prefix cache serves.

A scripted 30-turn conversation about a trust agreement, each turn with two retrieved
passages, runs twice against the live server: with docchat's layout (passages in the user
turn, resent unchanged later) and with a common baseline layout (this turn's passages in
the system prompt). Only answer requests count: each one's
`usage.prompt_tokens_details.cached_tokens` over its `prompt_tokens` (the server runs with
--enable-prompt-tokens-details). The DSPy programs are off, so no rewrite or title call
competes with the answers. docchat's run finds each turn's passages through a scripted library
(`ScriptedPassages`, given to build_services as the Retriever), so they are laid out, numbered
and cited as retrieved passages are.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path

TURNS = 30
ANSWER_TOKENS = 24
_CLAUSES = [
    ("Determination Date", "the 15th calendar day of each month"),
    ("Business Day", "a day on which banks are open for general business in London and New York"),
    ("Payment Date", "the second Business Day after each Determination Date"),
    ("Collection Period", "the calendar month preceding each Determination Date"),
    ("Reserve Account", "an account held by the Trustee to cover shortfalls in interest"),
    ("Servicer", "the entity that collects payments on the receivables for the Trust"),
]


def script(turns: int = TURNS, *, case: str = "") -> list[tuple[str, list[str]]]:
    """(question, retrieved passages) for each turn; `case` makes a run's text its own, so no
    earlier run's cache entries can serve it."""
    steps = []
    for turn in range(turns):
        term, meaning = _CLAUSES[turn % len(_CLAUSES)]
        section = 4 + turn
        passages = [
            f"{case}Section {section}.1 ({term}). In this Agreement, {term} means {meaning}. The definition applies "
            f"to every Class of Notes issued under the Indenture dated 12 March 2024.",
            f"Section {section}.2. If any {term} would fall on a day that is not a Business Day, it is moved "
            f"to the next Business Day, unless that day falls in the next calendar month (paragraph {turn + 1}).",
        ]
        question = f"{case}Turn {turn + 1}: what does the agreement say about the {term} in section {section}?"
        steps.append((question, passages))
    return steps


class ScriptedPassages:
    """The document library as the answer pipeline sees it (the Retriever port), finding each
    turn's scripted passages: docchat lays them out and numbers them as retrieved ones."""

    def __init__(self) -> None:
        self._found: list = []

    def turn(self, number: int, passages: list[str]) -> None:
        from docchat.domain import ChunkRecord, Retrieved

        self._found = [
            Retrieved(ChunkRecord(id=f"turn-{number}-{n}", document_id="trust-agreement", position=n,
                                  # The pipeline counts what it sends itself; this is a rough count.
                                  label=f"section {number}.{n}", page=None, text=text,
                                  token_count=len(text.split())),
                      "Trust Agreement", 1.0 / n)
            for n, text in enumerate(passages, start=1)]

    def retrieve(self, query: str, *, top_k: int, document_ids=None, active=frozenset()) -> list:
        return self._found[:top_k]

    def retrieve_each(self, query: str, document_ids, *, top_k: int, active=frozenset()) -> dict:
        return {"trust-agreement": self._found[:top_k]}

    def in_scope(self, document_ids) -> list[tuple[str, str]]:
        return [("trust-agreement", "Trust Agreement")]

    def whole(self, document_ids, *, max_tokens: int):
        return None  # always passages in the user turn, as the script gives them


def _docchat_run(services, library: ScriptedPassages, steps) -> list[tuple[float, dict]]:
    from docchat.domain import AnswerForm

    results, conversation_id = [], None
    for number, (question, passages) in enumerate(steps, start=1):
        library.turn(number, passages)
        # In the model's own words: the layout measured is of the prompts the model is sent, and
        # a fresh install would otherwise quote the passages without asking it (the citation gate).
        turn = services.chat.answer(conversation_id, question, form=AnswerForm.FREE)
        conversation_id = turn.conversation_id
        started, first = time.perf_counter(), None
        for _ in turn:
            first = first or time.perf_counter()
        results.append(((first or time.perf_counter()) - started, turn.usage or {}))
    return results


def _baseline_run(gateway, system_prompt: str, steps) -> list[tuple[float, dict]]:
    results, history = [], []
    for question, passages in steps:
        context = "\n\n".join(f"[{n}] {p}" for n, p in enumerate(passages, start=1))
        messages = [{"role": "system", "content": f"{system_prompt}\n\nContext:\n{context}"}]
        messages += history + [{"role": "user", "content": question}]
        started, first = time.perf_counter(), None
        generation = gateway.stream(messages, max_tokens=ANSWER_TOKENS)
        for _ in generation:
            first = first or time.perf_counter()
        results.append(((first or time.perf_counter()) - started, generation.usage or {}))
        history += [{"role": "user", "content": question}, {"role": "assistant", "content": generation.text}]
    return results


def _summary(results) -> tuple[float, float]:
    cached = sum((usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0) for _, usage in results)
    prompted = sum(usage.get("prompt_tokens", 0) for _, usage in results)
    return (cached / prompted if prompted else 0.0), statistics.median(t for t, _ in results) * 1000


def _reuse(results) -> float:
    """Cached tokens over what the previous request's prompt and answer made reusable.

    New text in a turn (its passages and question) cannot be cached however stable the
    layout; this ratio shows how much of what could be reused was.
    """
    cached = reusable = 0
    for (_, before), (_, after) in zip(results, results[1:]):
        reusable += before.get("prompt_tokens", 0) + before.get("completion_tokens", 0)
        cached += (after.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
    return cached / reusable if reusable else 0.0


def run_prefix_bench(*, turns: int = TURNS, as_json: bool = False, llm_url: str | None = None,
                     api_key: str | None = None) -> dict:
    """`llm_url` and `api_key`: the server to measure, if not the one docchat is set up for."""
    from docchat.bootstrap import build_services, gateway_for
    from docchat.llm.server_key import llm_key
    from docchat.config import Settings

    case = f"Case {uuid.uuid4().hex[:8]}. "
    steps = script(turns, case=case)
    with tempfile.TemporaryDirectory(prefix="docchat-bench-prefix-") as tmp:
        settings = Settings(data_dir=Path(tmp), max_tokens=ANSWER_TOKENS, context_programs=False,
                            llm_api_key=api_key or llm_key(Settings())(),
                            **({"llm_url": llm_url} if llm_url else {}))
        gateway = gateway_for(settings)
        library = ScriptedPassages()
        services = build_services(settings, gateway=gateway, retriever=library)
        if not as_json:
            info = gateway.info()
            print(f"server {info.base_url}: {info.model}, window {info.max_model_len:,}; {turns} turns, "
                  f"answers of at most {ANSWER_TOKENS} tokens")
        baseline = _baseline_run(gateway, settings.system_prompt, script(turns, case=case + "B. "))
        ours = _docchat_run(services, library, steps)
        compactions = services.conversations.list()[0].settings.compactions
    our_ratio, our_ttft = _summary(ours)
    base_ratio, base_ttft = _summary(baseline)
    result = {
        "docchat_hit_ratio": round(our_ratio, 4),
        "baseline_hit_ratio": round(base_ratio, 4),
        "docchat_ttft_ms": round(our_ttft, 1),
        "baseline_ttft_ms": round(base_ttft, 1),
    }
    if as_json:
        print(json.dumps(result))
        return result
    ordinary = ours[1:]
    print(f"{'layout':<44}{'hit ratio':>10}{'TTFT p50 ms':>13}")
    print(f"{'docchat (context in the user turn)':<44}{our_ratio:>10.3f}{our_ttft:>13.1f}")
    print(f"{'baseline (context in the system prompt)':<44}{base_ratio:>10.3f}{base_ttft:>13.1f}")
    print(f"docchat, ordinary turns 2-{turns}: hit ratio {_summary(ordinary)[0]:.3f}; of the previous prompt "
          f"and answer, {_reuse(ours):.3f} served from cache (baseline {_reuse(baseline):.3f})")
    print(f"compactions during the run: {compactions}; last prompt {ours[-1][1].get('prompt_tokens', 0):,} tokens")
    return result
