"""The prompt layout, prefix-stable so that vLLM's prefix cache reuses the KV cache:

1. the fixed system prompt (no timestamps, never edited);
2. the summary in force (changes only at a compaction);
3. the history, byte-identical to what was sent before: assistant text exactly as
   generated, user turns exactly as sent (their `sent_content`, context included);
4. the new user turn: retrieved context first, then the question.

So between two ordinary turns, the new prompt is the previous one plus its answer plus
the new turn. Only a compaction (a new summary) changes an earlier part.
"""

from __future__ import annotations

from docchat.domain import Message, Summary

SUMMARY_HEADING = "Summary of the conversation so far:"


def summary_text(summary: Summary) -> str:
    return f"{SUMMARY_HEADING}\n{summary.content}"


def user_turn(question: str, chunks: list[str]) -> str:
    """What the model is sent for a question: numbered context first, so it can cite [1], [2]."""
    if not chunks:
        return question
    context = "\n\n".join(f"[{number}] {chunk}" for number, chunk in enumerate(chunks, start=1))
    return f"Context:\n{context}\n\nQuestion: {question}"


def build(system_prompt: str, summary: Summary | None, history: list[Message]) -> list[dict]:
    """The messages to send; `history` ends with the new user turn."""
    messages = [{"role": "system", "content": system_prompt}]
    if summary is not None:
        messages.append({"role": "system", "content": summary_text(summary)})
    messages += [{"role": m.role.value, "content": m.model_text} for m in history]
    return messages
