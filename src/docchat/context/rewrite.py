"""Follow-up questions as standalone retrieval queries.

Signal-gated: the DSPy rewriter runs only for a question with a reference word (it, this,
that, they, same, ...) or a short one; any other question passes through at no cost.
Without the rewriter, or when it fails, retrieval reads the question with the previous one
(docchat.context.followup), which a small model cannot spoil. Appending the summary's topics
and recent salient terms was the fallback before; it blurs a follow-up after two topics, and
stays only as the baseline `docchat bench followups` measures (docchat_bench.followups.enrich).
"""

from __future__ import annotations

import logging
import re

from docchat.context.skill_gate import SkillGate
from docchat.errors import UnusableOutput
from docchat.ports import SkillRecord

log = logging.getLogger(__name__)

REFERENCE_WORDS = frozenset(
    "it its this that these those they them their same which both either neither above former latter "
    "he she him her such".split()
)
SHORT_QUESTION_WORDS = 5
RECENT_MESSAGES = 6
MAX_OUTPUT_TOKENS = 150
SKILL = "rewrite"
_WORDS = re.compile(r"[A-Za-z']+")


def needs_rewrite(question: str) -> bool:
    words = [w.lower() for w in _WORDS.findall(question)]
    return len(words) <= SHORT_QUESTION_WORDS or any(w in REFERENCE_WORDS for w in words) or "the above" in question.lower()


class RewriteGate(SkillGate):
    """Whether the served model is worth asking for rewrites. The bundled 135M model is not:
    each try cost seconds and gave nothing."""

    def __init__(self, record: SkillRecord):
        super().__init__(record, SKILL)


def rewrite_due(programs, recent: list, question: str, gate: RewriteGate | None = None) -> bool:
    """Whether `standalone_query` will ask the model (which takes seconds on a CPU)."""
    return (programs is not None and bool(recent) and needs_rewrite(question)
            and (gate is None or gate.worth_asking()))


def standalone_query(programs, recent: list, question: str, gate: RewriteGate | None = None) -> str | None:
    """The rewriter's standalone query, or None when the question needs none, there is no
    rewriter, the served model has shown it cannot rewrite, it failed, or it changed nothing."""
    if not rewrite_due(programs, recent, question, gate):
        return None
    try:
        query = programs.rewrite(transcript(recent), question, max_tokens=MAX_OUTPUT_TOKENS)
    except UnusableOutput as error:
        log.info("the served model's rewrite was unusable, reading the question with the previous one: %s", error)
        if gate is not None:
            gate.note(usable=False)
        return None
    except Exception as error:  # a failed rewrite must never cost the answer
        log.info("rewriter failed, reading the question with the previous one instead: %s", error)
        return None
    if gate is not None:
        gate.note(usable=True)
    return None if query == question else query


def transcript(messages) -> str:
    return "\n".join(f"{m.role.value}: {m.content}" for m in messages)
