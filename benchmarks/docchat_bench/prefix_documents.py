"""`docchat bench prefix --documents`: whole documents in the cached prefix against passages.

One generated agreement, small enough for the passage budget, is ingested twice through the
real services (SQLite, MiniLM, Qdrant local mode), and the same questions are asked in one
conversation against the live server:
- docchat's whole-document mode: the agreement sits once, right after the system prompt, and
  vLLM's prefix cache serves it on every later turn;
- retrieved passages in the user turn (the passage budget set below the agreement's size, so
  that retrieval fills it instead), each turn bringing new passages the cache cannot know.
Only answer requests count; the DSPy programs are off.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from docchat_bench.prefix import ANSWER_TOKENS, _CLAUSES

TURNS = 8
# Below the agreement's size (about 1,900 tokens) on the cpu profile's window: passages instead.
PASSAGE_SHARE = 0.12


def agreement(case: str) -> bytes:
    """A Markdown trust agreement with a section per defined term, about 1,900 tokens."""
    lines = [f"# Harbour Street Trust Agreement ({case})", ""]
    for number, (term, meaning) in enumerate(_CLAUSES * 2, start=1):
        lines += [f"## Section {number}: {term}", "",
                  f"In this Agreement, {term} means {meaning}. Section {number} applies to every Class of "
                  f"Notes issued under the Indenture dated 12 March 2024. If the {term} would fall on a day "
                  f"that is not a Business Day, it moves to the next Business Day, unless that day is in the "
                  f"next calendar month, in which case it moves to the preceding Business Day.", ""]
    return "\n".join(lines).encode()


def questions(turns: int) -> list[str]:
    return [f"What does section {n + 1} say about the {_CLAUSES[n % len(_CLAUSES)][0]}?" for n in range(turns)]


def _run(settings, case: str, turns: int) -> tuple[list[tuple[float, dict]], list]:
    from docchat.bootstrap import build_services

    services = build_services(settings)
    services.ingestion.ingest("Harbour Street Trust Agreement.md", agreement(case))
    results, budgets, conversation_id = [], [], None
    for question in questions(turns):
        turn = services.chat.answer(conversation_id, f"{question} ({case})")
        conversation_id = turn.conversation_id
        started, first = time.perf_counter(), None
        for _ in turn:
            first = first or time.perf_counter()
        results.append(((first or time.perf_counter()) - started, turn.usage or {}))
        budgets.append(turn.budget)
    return results, budgets


def _figures(results) -> dict:
    cached = sum((usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0) for _, usage in results)
    prompted = sum(usage.get("prompt_tokens", 0) for _, usage in results)
    later = [t for t, _ in results[1:]] or [t for t, _ in results]
    return {"hit_ratio": round(cached / prompted, 4) if prompted else 0.0,
            "ttft_ms_median": round(statistics.median(t for t, _ in results) * 1000, 1),
            "ttft_ms_median_after_first": round(statistics.median(later) * 1000, 1),
            "prompt_tokens": prompted}


def run_document_prefix_bench(*, turns: int = TURNS, as_json: bool = False) -> dict:
    from docchat.llm.server_key import llm_key
    from docchat.config import Settings

    case = f"case {uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="docchat-bench-documents-") as tmp:
        base = Settings(data_dir=Path(tmp) / "whole", max_tokens=ANSWER_TOKENS, context_programs=False,
                        llm_api_key=llm_key(Settings())())
        whole, whole_budgets = _run(base, case, turns)
        passages, passage_budgets = _run(base.model_copy(update={"data_dir": Path(tmp) / "passages",
                                                                 "cap_chunks": PASSAGE_SHARE}), case + " P", turns)
    result = {
        "turns": turns,
        "whole_documents": {**_figures(whole), "mode": whole_budgets[0].mode, "document_tokens": whole_budgets[0].chunks},
        "passages": {**_figures(passages), "mode": passage_budgets[0].mode,
                     "passages_per_turn": round(statistics.mean(b.passages for b in passage_budgets), 1),
                     "passage_tokens_per_turn": round(statistics.mean(b.chunks for b in passage_budgets))},
    }
    if as_json:
        print(json.dumps(result))
        return result
    w, p = result["whole_documents"], result["passages"]
    print(f"{turns} questions in one conversation about one agreement; answers of at most {ANSWER_TOKENS} tokens")
    print(f"{'layout':<46}{'hit ratio':>10}{'TTFT p50 ms':>13}{'after turn 1':>14}")
    print(f"{'whole document in the prefix (' + w['mode'] + ')':<46}{w['hit_ratio']:>10.3f}"
          f"{w['ttft_ms_median']:>13.1f}{w['ttft_ms_median_after_first']:>14.1f}")
    print(f"{'retrieved passages in the user turn (' + p['mode'] + ')':<46}{p['hit_ratio']:>10.3f}"
          f"{p['ttft_ms_median']:>13.1f}{p['ttft_ms_median_after_first']:>14.1f}")
    print(f"document block {w['document_tokens']:,} tokens, once; passages {p['passage_tokens_per_turn']:,} tokens "
          f"({p['passages_per_turn']} passages) in every turn")
    return result
