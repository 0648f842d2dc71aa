"""`docchat bench memory`: append + prompt window on a ~250K-token conversation.

docchat's memory against LlamaIndex's ChatMemoryBuffer(token_limit=260000) over
llama-index-storage-chat-store-sqlite, both persisting to SQLite on disk and both counting
with the same Qwen3 tokenizer. Each turn appends one user question and builds the window.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path

from docchat.bench.figures import p50_p95

HISTORY_MESSAGES = 2000
TARGET_TOKENS = 250_000
BUDGET = 260_000
_WORDS = (
    "account accrual agreement amount annual asset balance bank basis board bond budget calculation "
    "capital cash clause company contract cost coupon credit currency date debt default delivery "
    "determination dividend document equity exchange expense fee fiscal fund guarantee holder income "
    "index interest invoice issuer ledger liability loan margin market maturity meeting member month "
    "notice obligation option party payment period policy premium price principal quarter rate record "
    "report reserve revenue risk schedule section security settlement share statement tax term trade "
    "transfer trust value weekend year business calendar following preceding adjusted unadjusted"
).split()


def _text(rng: random.Random, words: int) -> str:
    sentence, out = [], []
    for _ in range(words):
        sentence.append(rng.choice(_WORDS))
        if len(sentence) >= rng.randint(8, 16):
            out.append(" ".join(sentence).capitalize() + ".")
            sentence = []
    if sentence:
        out.append(" ".join(sentence).capitalize() + ".")
    return " ".join(out)


def make_history(counter, *, messages: int = HISTORY_MESSAGES, target_tokens: int = TARGET_TOKENS, seed: int = 7):
    """Alternating user/assistant messages whose Qwen3 counts add up to about target_tokens."""
    rng = random.Random(seed)
    words_per_message = 90
    history = []
    for i in range(messages):
        role = "user" if i % 2 == 0 else "assistant"
        words = rng.randint(words_per_message // 4, words_per_message * 7 // 4)
        history.append((role, _text(rng, words)))
    total = sum(counter.count_message(role, text) for role, text in history)
    scale = target_tokens / total
    rng = random.Random(seed)
    history = []
    for i in range(messages):
        role = "user" if i % 2 == 0 else "assistant"
        words = rng.randint(words_per_message // 4, words_per_message * 7 // 4)
        history.append((role, _text(rng, max(1, round(words * scale)))))
    return history


def _questions(turns: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [f"And what happens to the {_text(rng, rng.randint(20, 45)).lower()} if it falls on a weekend?"
            for _ in range(turns)]



def _bench_docchat(workdir: Path, history, questions, counter) -> tuple[list[float], int]:
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    services = build_services(Settings(data_dir=workdir / "docchat"), counter=counter)
    conversation = services.conversations.create("Benchmark: 2,000 messages")
    memory = services.conversations.memory(conversation.id)
    for role, text in history:
        memory.add(role, text)
    samples = []
    for question in questions:
        started = time.perf_counter()
        memory.add("user", question)
        window = memory.get(token_limit=BUDGET)
        samples.append((time.perf_counter() - started) * 1000)
    return samples, len(window)


def _bench_baseline(workdir: Path, history, questions, counter) -> tuple[list[float], int]:
    from llama_index.core.llms import ChatMessage
    from llama_index.core.memory import ChatMemoryBuffer
    from llama_index.storage.chat_store.sqlite import SQLiteChatStore

    store = SQLiteChatStore.from_uri(f"sqlite:///{workdir / 'baseline.db'}")
    store.set_messages("bench", [ChatMessage(role=role, content=text) for role, text in history])
    encode = counter._tokenizer.encode  # the same Qwen3 tokenizer, so both count the same tokens
    buffer = ChatMemoryBuffer.from_defaults(
        token_limit=BUDGET, chat_store=store, chat_store_key="bench", tokenizer_fn=encode
    )
    samples = []
    for question in questions:
        started = time.perf_counter()
        buffer.put(ChatMessage(role="user", content=question))
        window = buffer.get()
        samples.append((time.perf_counter() - started) * 1000)
    return samples, len(window)


def run_memory_bench(*, turns: int = 200, as_json: bool = False) -> dict:
    from docchat.memory.tokens import QwenTokenCounter

    counter = QwenTokenCounter()
    history = make_history(counter)
    questions = _questions(turns)
    history_tokens = sum(counter.count_message(role, text) for role, text in history)
    final_tokens = history_tokens + sum(counter.count_message("user", q) for q in questions)
    with tempfile.TemporaryDirectory(prefix="docchat-bench-") as tmp:
        if not as_json:
            print(f"history: {len(history)} messages, {history_tokens:,} tokens (Qwen3, with ChatML overhead); "
                  f"after {turns} turns: {final_tokens:,} tokens; budget {BUDGET:,}")
        ours, our_window = _bench_docchat(Path(tmp), history, questions, counter)
        theirs, their_window = _bench_baseline(Path(tmp), history, questions, counter)
    ours_p50, ours_p95 = p50_p95(ours)
    base_p50, base_p95 = p50_p95(theirs)
    result = {
        "docchat_p50_ms": round(ours_p50, 3),
        "docchat_p95_ms": round(ours_p95, 3),
        "baseline_p50_ms": round(base_p50, 3),
        "baseline_p95_ms": round(base_p95, 3),
        "ratio_p50": round(base_p50 / ours_p50, 1),
    }
    if as_json:
        print(json.dumps(result))
    else:
        print(f"{'':<34}{'p50 ms':>10}{'p95 ms':>10}{'window msgs':>13}")
        print(f"{'docchat ConversationMemory':<34}{ours_p50:>10.2f}{ours_p95:>10.2f}{our_window:>13}")
        print(f"{'ChatMemoryBuffer + SQLiteChatStore':<34}{base_p50:>10.2f}{base_p95:>10.2f}{their_window:>13}")
        print(f"p50 ratio (baseline / docchat): {result['ratio_p50']}x over {turns} turns")
    return result
