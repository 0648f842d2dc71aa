"""`docchat bench memory`: what a turn costs the memory, append one question + build the
prompt window, as a conversation grows to ~250K tokens.

docchat's memory against, in the same run, LlamaIndex's ChatMemoryBuffer (over
llama-index-storage-chat-store-sqlite) and its replacement, Memory (over its own
SQLAlchemyChatStore), each with token_limit=260000, all three on SQLite files and all three
counting with docchat's Qwen3 encoder. Memory gets chat_history_token_ratio=1.0: with its
default 0.7 it would archive history the other two keep, and build a smaller window.

One conversation of each grows through the lengths asked for; at each length, each memory
in turn appends the same questions one by one and builds its window after each.
"""

from __future__ import annotations

import gc
import json
import random
import tempfile
import time
from pathlib import Path

from docchat_bench.figures import p50_p95

HISTORY_MESSAGES = 2000
TARGET_TOKENS = 250_000
BUDGET = 260_000
LENGTHS = (10_000, 50_000, 125_000, 250_000)
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


class _Docchat:
    key, label = "docchat", "docchat ConversationMemory"

    def __init__(self, workdir: Path, counter):
        from docchat.bootstrap import build_services
        from docchat.config import Settings

        services = build_services(Settings(data_dir=workdir / "docchat"), counter=counter)
        conversation = services.conversations.create("Benchmark: a long conversation")
        self._memory = services.messages.memory(conversation.id)

    def grow(self, messages: list[tuple[str, str]]) -> None:
        for role, text in messages:
            self._memory.add(role, text)

    def turn(self, question: str) -> int:
        self._memory.add("user", question)
        return len(self._memory.get(token_limit=BUDGET))


class _ChatMemoryBuffer:
    key, label = "chat_memory_buffer", "ChatMemoryBuffer + SQLiteChatStore"

    def __init__(self, workdir: Path, encode):
        from llama_index.core.memory import ChatMemoryBuffer
        from llama_index.storage.chat_store.sqlite import SQLiteChatStore

        self._store = SQLiteChatStore.from_uri(f"sqlite:///{workdir / 'chat_memory_buffer.db'}")
        self._buffer = ChatMemoryBuffer.from_defaults(
            token_limit=BUDGET, chat_store=self._store, chat_store_key="bench", tokenizer_fn=encode
        )

    def grow(self, messages: list[tuple[str, str]]) -> None:
        kept = self._buffer.get_all()
        # SQLiteChatStore.set_messages appends to what the key holds (llama-index-storage-chat-store-sqlite 0.4.0).
        self._store.delete_messages("bench")
        self._store.set_messages("bench", kept + _chat_messages(messages))

    def turn(self, question: str) -> int:
        from llama_index.core.llms import ChatMessage

        self._buffer.put(ChatMessage(role="user", content=question))
        return len(self._buffer.get())


class _Memory:
    key, label = "memory", "Memory + SQLAlchemyChatStore"

    def __init__(self, workdir: Path, encode):
        from llama_index.core.memory import Memory

        self._memory = Memory.from_defaults(
            session_id="bench", token_limit=BUDGET, tokenizer_fn=encode, chat_history_token_ratio=1.0,
            async_database_uri=f"sqlite+aiosqlite:///{workdir / 'memory.db'}",
        )

    def grow(self, messages: list[tuple[str, str]]) -> None:
        if messages:
            self._memory.put_messages(_chat_messages(messages))

    def turn(self, question: str) -> int:
        from llama_index.core.llms import ChatMessage

        self._memory.put(ChatMessage(role="user", content=question))
        return len(self._memory.get())


def _chat_messages(messages: list[tuple[str, str]]) -> list:
    from llama_index.core.llms import ChatMessage

    return [ChatMessage(role=role, content=text) for role, text in messages]


def _measure(memory, questions: list[str]) -> dict:
    gc.collect()  # the garbage of whichever memory ran before is not this one's cost
    wall, cpu, window = [], [], 0
    for question in questions:
        started, started_cpu = time.perf_counter(), time.process_time()
        window = memory.turn(question)
        # CPU time counts every thread of the process (Memory's store runs in one of its own).
        cpu.append((time.process_time() - started_cpu) * 1000)
        wall.append((time.perf_counter() - started) * 1000)
    (p50, p95), (cpu_p50, cpu_p95) = p50_p95(wall), p50_p95(cpu)
    return {"ms_p50": round(p50, 3), "ms_p95": round(p95, 3), "cpu_ms_p50": round(cpu_p50, 3),
            "cpu_ms_p95": round(cpu_p95, 3), "window_messages": window}


def run_memory_bench(*, turns: int = 40, lengths: tuple[int, ...] = LENGTHS, as_json: bool = False) -> dict:
    from docchat.memory.tokens import QwenTokenCounter

    counter = QwenTokenCounter()
    lengths = sorted(set(lengths))
    history = make_history(counter, messages=max(2, round(HISTORY_MESSAGES * lengths[-1] / TARGET_TOKENS)),
                           target_tokens=lengths[-1])
    counts = [counter.count_message(role, text) for role, text in history]
    questions = _questions(turns * len(lengths))
    if not as_json:
        print(f"one conversation grown to {', '.join(f'{n:,}' for n in lengths)} Qwen3 tokens (with ChatML "
              f"overhead); at each length {turns} turns of append one question + build the window within "
              f"{BUDGET:,} tokens")
    rows = []
    with tempfile.TemporaryDirectory(prefix="docchat-bench-") as tmp:
        memories = [_Docchat(Path(tmp), counter), _ChatMemoryBuffer(Path(tmp), counter.encode_text),
                    _Memory(Path(tmp), counter.encode_text)]
        grown = tokens = messages = 0
        for stage, length in enumerate(lengths):
            start = grown
            while grown < len(history) and tokens < length:
                tokens, grown = tokens + counts[grown], grown + 1
            for memory in memories:
                memory.grow(history[start:grown])
            messages += grown - start
            asked = questions[stage * turns:(stage + 1) * turns]
            row = {"history_tokens": tokens, "history_messages": messages}
            for memory in memories:
                row.update({f"{memory.key}_{name}": figure for name, figure in _measure(memory, asked).items()})
            for key in ("chat_memory_buffer", "memory"):
                row[f"{key}_ratio_p50"] = round(row[f"{key}_ms_p50"] / row["docchat_ms_p50"], 1)
            rows.append(row)
            tokens += sum(counter.count_message("user", q) for q in asked)
            messages += len(asked)
            if not as_json:
                _print_row(row, memories)
    last = rows[-1]
    result = {
        "budget": BUDGET,
        "turns": turns,
        "lengths": rows,
        # The figures at the longest history, under the names earlier versions printed.
        "docchat_p50_ms": last["docchat_ms_p50"],
        "docchat_p95_ms": last["docchat_ms_p95"],
        "baseline_p50_ms": last["chat_memory_buffer_ms_p50"],
        "baseline_p95_ms": last["chat_memory_buffer_ms_p95"],
        "ratio_p50": last["chat_memory_buffer_ratio_p50"],
        "memory_p50_ms": last["memory_ms_p50"],
        "memory_p95_ms": last["memory_ms_p95"],
        "memory_ratio_p50": last["memory_ratio_p50"],
    }
    if as_json:
        print(json.dumps(result))
    return result


def _print_row(row: dict, memories) -> None:
    title = f"history {row['history_tokens']:,} tokens, {row['history_messages']:,} messages"
    print(f"\n{title:<46}{'p50 ms':>9}{'p95 ms':>9}{'CPU p50':>9}{'CPU p95':>9}{'window':>8}{'vs docchat':>12}")
    for memory in memories:
        key = memory.key
        ratio = f"{row[f'{key}_ratio_p50']:.1f}x" if key != "docchat" else ""
        print(f"  {memory.label:<44}{row[f'{key}_ms_p50']:>9.2f}{row[f'{key}_ms_p95']:>9.2f}"
              f"{row[f'{key}_cpu_ms_p50']:>9.2f}{row[f'{key}_cpu_ms_p95']:>9.2f}"
              f"{row[f'{key}_window_messages']:>8}{ratio:>12}")
