"""The prompt layout, prefix-stable so that vLLM's prefix cache reuses the KV cache:

1. the fixed system prompt (no timestamps, never edited);
2. the document block: whole documents, when the conversation's scope fits the passage
   budget (changes only when the scope or a document changes);
3. the summary in force (changes only at a compaction);
4. the history, byte-identical to what was sent before: assistant text exactly as
   generated, user turns exactly as sent (their `sent_content`, passages included);
5. the new user turn: retrieved passages first (when the documents are not in the block),
   then the question.

So between two ordinary turns, the new prompt is the previous one plus its answer plus
the new turn. Only a compaction (a new summary) or a change of the block changes an
earlier part.
"""

from __future__ import annotations

from docchat.context.evidence import numbered
from docchat.domain import Message, Role, Summary

# The default system prompt (Settings.system_prompt). Fixed text, nothing of a turn in it: it
# opens every prompt and the prefix cache keeps it. The second sentence is for questions the
# documents do not answer: an instruction-following model (the GPU profile's) then says so
# instead of guessing; the page says the same from the evidence judgement whatever the model does.
SYSTEM_PROMPT = (
    "You are docchat, a careful assistant. Answer the user's questions clearly and concisely. "
    "When you are given numbered passages or documents, answer from them and cite them by number, "
    "e.g. [1]; when they do not contain the answer, say that the documents do not contain it before "
    "anything else. If you do not know, say so."
)
SUMMARY_HEADING = "Summary of the conversation so far:"
# Looked up, not read from the member: an Enum's `.value` costs over a microsecond, and a
# 2,000-message history reads it 2,000 times a turn.
_ROLES = {role: role.value for role in Role}


def summary_text(summary: Summary) -> str:
    return f"{SUMMARY_HEADING}\n{summary.content}"


def user_turn(question: str, passages: list[str]) -> str:
    """What the model is sent for a question: numbered passages first, so it can cite [1], [2]."""
    if not passages:
        return question
    return f"Context:\n{numbered(passages)}\n\nQuestion: {question}"


def build(system_prompt: str, summary: Summary | None, history: list[Message], *,
          documents: str | None = None) -> list[dict]:
    """The messages to send; `history` ends with the new user turn."""
    messages = [{"role": "system", "content": system_prompt}]
    if documents is not None:
        messages.append({"role": "system", "content": documents})
    if summary is not None:
        messages.append({"role": "system", "content": summary_text(summary)})
    messages += [{"role": _ROLES[m.role], "content": m.model_text} for m in history]
    return messages
