"""Assembles each prompt: plans the budget, condenses when the history outgrows its share,
and lays the prompt out prefix-stable (see docchat.context.prompt).

A compaction is the only event that changes an earlier part of the prompt: at 95% of the
history's share the condenser folds the older turns (and the previous summary) into a new
summary; the most recent turns stay verbatim. If the condenser fails, the oldest turns are
left out instead (recency truncation, down to 60% of the share, so that the cut holds for a
while); the turn is answered either way.
"""

from __future__ import annotations

import logging
import uuid
from bisect import bisect_right
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import accumulate

from docchat.context import prompt
from docchat.context.planner import Caps, Plan, plan
from docchat.context.terms import salient_terms
from docchat.domain import Message, Role, Summary, utcnow
from docchat.ports import Programs, TokenCounter

log = logging.getLogger(__name__)

CONDENSE_AT = 0.95
TRUNCATE_TO = 0.6
KEEP_RECENT = 4
SUMMARY_MAX_TOKENS = 512
# A small CPU model writes about 18 tokens/s and reads about 190 (on two cores, fp32): a short
# summary of at most this much transcript keeps condensation (about 20 s) within the programs'
# time-out. Older turns than fit are left to the previous summary.
SMALL_WINDOW = 16_384
SMALL_SUMMARY_MAX_TOKENS = 160
SMALL_CONDENSE_INPUT = 1_536


@dataclass(frozen=True)
class Assembly:
    messages: list[dict]
    plan: Plan
    history: list[Message]
    summary: Summary | None
    new_summary: Summary | None
    truncated: int
    condense_error: str | None
    # When turns were left out: the first seq still sent (to be remembered as the cut).
    cut_seq: int | None = None


class ContextEngine:
    def __init__(self, counter: TokenCounter, programs: Programs | None, *, system_prompt: str,
                 caps: Caps = Caps(), keep_recent: int = KEEP_RECENT):
        self._counter = counter
        self._programs = programs
        self._system_prompt = system_prompt
        self._caps = caps
        self._keep_recent = keep_recent
        # The system prompt is fixed, a summary changes only at a compaction, a conversation's
        # instructions when the user edits them, yet each turn's plans count them two or three
        # times: remembered by text, each counted once, when first planned (not here: a command
        # that plans nothing does not load a tokenizer for it).
        self._system_message_tokens = lru_cache(maxsize=64)(lambda text: counter.count_message("system", text))

    @property
    def caps(self) -> Caps:
        return self._caps

    @property
    def template_tokens(self) -> int:
        return getattr(self._counter, "generation_prompt_tokens", 0)

    def system_prompt(self, instructions: str = "") -> str:
        """The system prompt, followed by a conversation's own instructions when it has some."""
        return f"{self._system_prompt}\n\n{instructions}" if instructions else self._system_prompt

    def system_tokens(self, instructions: str = "") -> int:
        return self._system_message_tokens(self.system_prompt(instructions))

    def assemble(self, *, conversation_id: str, tail: list[Message], summary: Summary | None,
                 max_model_len: int, answer_reserve: int, may_condense: bool = True,
                 documents: str | None = None, document_tokens: int = 0, passage_tokens: int = 0,
                 instructions: str = "") -> Assembly:
        """`tail`: the messages after the summary, ending with the new question.

        `documents`: the whole-document block (`document_tokens` with its template), or
        `passage_tokens`: the part of the question's user turn that its passages take.
        `may_condense` is False for a while after a failed condensation, so that a failing
        condenser does not cost every turn its time-out.
        """
        *history, question = tail
        chunks, question_tokens = document_tokens + passage_tokens, question.token_count - passage_tokens

        def planned(summary):
            return self._plan(summary, question_tokens, chunks, max_model_len, answer_reserve, instructions)

        budget, sent_summary = planned(summary)
        new_summary = condense_error = None
        over = _tokens(history) > CONDENSE_AT * budget.history_share
        if over:
            split = max(0, len(history) - self._keep_recent)
            older, recent = history[:split], history[split:]
            if older and self._programs is not None and may_condense:
                try:
                    new_summary = self._condense(conversation_id, summary, older, budget)
                except Exception as error:  # the condenser is a nicety; the turn goes on
                    condense_error = f"{type(error).__name__}: {error}"[:300]
                    log.warning("condensation failed, truncating instead: %s", condense_error)
            if new_summary is not None:
                summary, history = new_summary, recent
                budget, sent_summary = planned(summary)
        summary = sent_summary
        if over and new_summary is None:
            # Truncation, down to a low-water mark: the cut then holds (and the prompt prefix
            # with it) for the turns until the history fills up again.
            kept = _fit(history, int(TRUNCATE_TO * budget.history_share))
        else:
            kept = _fit(history, budget.history_share)
        truncated = len(history) - len(kept)
        return Assembly(
            messages=prompt.build(self.system_prompt(instructions), summary, kept + [question], documents=documents),
            plan=budget, history=kept, summary=summary, new_summary=new_summary,
            truncated=truncated, condense_error=condense_error,
            cut_seq=(kept[0].seq if kept else question.seq) if truncated else None,
        )

    def refuse_if_too_long(self, question_tokens: int, max_model_len: int, answer_reserve: int,
                           instructions: str = "") -> Plan:
        """The plan of a bare question: raises, with a message, when the question passes its cap."""
        return self._plan(None, question_tokens, 0, max_model_len, answer_reserve, instructions)[0]

    def _plan(self, summary, question: int, chunks: int, max_model_len: int, answer_reserve: int,
              instructions: str = "") -> tuple[Plan, Summary | None]:
        """The plan, and the summary as it will be sent: clipped to its cap if it is larger
        (one written for a bigger window). Clipping is deterministic, so the prefix holds."""
        system = self.system_tokens(instructions)

        def planned(summary_tokens: int) -> Plan:
            return plan(max_model_len=max_model_len, answer_reserve=answer_reserve, template=self.template_tokens,
                        system=system, summary=summary_tokens, chunks=chunks, question=question,
                        caps=self._caps)

        budget = planned(0)
        if summary is None:
            return budget, None
        summary = self._clip(summary, budget.cap("summary"))
        return planned(self._summary_tokens(summary)), summary

    def _summary_tokens(self, summary: Summary) -> int:
        return self._system_message_tokens(prompt.summary_text(summary))

    def _clip(self, summary: Summary, cap: int) -> Summary:
        if self._summary_tokens(summary) <= cap:
            return summary
        low, high = 0, len(summary.content)
        while low < high:  # the longest prefix of the text that fits
            middle = (low + high + 1) // 2
            if self._summary_tokens(replace(summary, content=summary.content[:middle])) <= cap:
                low = middle
            else:
                high = middle - 1
        return replace(summary, content=summary.content[:low])

    def _condense(self, conversation_id: str, previous: Summary | None, older: list[Message],
                  budget: Plan) -> Summary:
        # The summary must fit its cap once sent, heading and chat template included.
        heading = self._summary_tokens(Summary("", "", 0, 0, 0, "", utcnow()))
        small = budget.max_model_len <= SMALL_WINDOW
        longest = SMALL_SUMMARY_MAX_TOKENS if small else SUMMARY_MAX_TOKENS
        max_tokens = max(16, min(longest, budget.cap("summary") - heading))
        # The condenser's own request: its instructions, the previous summary, the transcript.
        previous_tokens = self._counter.count_text(previous.content) if previous else 0
        overhead = self._programs.condense_overhead(self._counter) if hasattr(self._programs, "condense_overhead") else 0
        room = budget.max_model_len - max_tokens - previous_tokens - overhead
        if small:
            room = min(room, SMALL_CONDENSE_INPUT)
        text = _transcript(older, room)
        condensed = self._programs.condense(previous.content if previous else "", text, max_tokens=max_tokens)
        topics = condensed.topics or salient_terms([m.model_text for m in older], limit=6)
        content = condensed.summary
        return Summary(
            id=str(uuid.uuid4()), conversation_id=conversation_id,
            version=(previous.version + 1) if previous else 1,
            first_seq=previous.first_seq if previous else older[0].seq, last_seq=older[-1].seq,
            content=content, created_at=utcnow(),
            metadata={"topics": topics, "key_questions": condensed.key_questions or
                      [_snippet(m.content) for m in older if m.role is Role.USER][-5:],
                      "decisions": condensed.decisions,
                      "folds_in_version": previous.version if previous else None},
            token_count=self._counter.count_message("system", prompt.summary_text(
                Summary("", "", 0, 0, 0, content, utcnow()))),
            tokenizer=self._counter.id,
        )


def _snippet(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _tokens(messages: list[Message]) -> int:
    return sum(m.token_count or 0 for m in messages)


def _fit(history: list[Message], share: int) -> list[Message]:
    """The longest recent run of `history` within `share` tokens."""
    # Running totals from the newest message back; counts are never negative, so they rise.
    totals = list(accumulate(m.token_count or 0 for m in reversed(history)))
    return history[len(history) - bisect_right(totals, share):]


def _transcript(messages: list[Message], max_tokens: int) -> str:
    """The most recent messages that fit, oldest first, as `role: text` lines."""
    kept = _fit(messages, max(0, max_tokens))
    return "\n".join(f"{m.role.value}: {m.model_text}" for m in kept)
