"""ContextEngine.assemble: condensing at 95% of the history's share, folding summaries, truncating on failure.

Real Qwen3 token counts; a scripted stand-in for the DSPy programs that records its calls.
"""

from __future__ import annotations

import itertools
import math
import uuid
from functools import lru_cache

from docchat.context import prompt
from docchat.context.engine import ContextEngine
from docchat.context.planner import plan
from docchat.context.programs import Condensed
from docchat.domain import Message, Role, Summary, utcnow
from docchat.errors import InvalidInput

CONVERSATION = "harbour-street-trust"
SYSTEM_PROMPT = "You answer questions about the Harbour Street Trust Agreement and cite its clauses."
RESERVE = 256

EXCHANGES = [
    ("What is the Determination Date?",
     "The Determination Date is the 15th day of each calendar month, as clause 4.2 defines it."),
    ("And what happens if it falls on a weekend?",
     "It moves to the next Business Day; clause 1.1 defines a Business Day as a day Sydney banks are open."),
    ("Who calculates the Distribution Amount on that date?",
     "The Trust Manager calculates it within two Business Days after the Determination Date (clause 5.1)."),
    ("Can the Trustee delegate that calculation?",
     "Yes: clause 7.3 lets the Trustee delegate to an agent, but the Trustee stays liable for the result."),
    ("What notice must the beneficiaries receive?",
     "Ten Business Days' written notice before any change to the Distribution Policy, under clause 9.1."),
    ("Is email good enough for that notice?",
     "Clause 15.2 allows email when the beneficiary has nominated an address for notices."),
    ("What happens if the Trust Manager resigns?",
     "The Trustee appoints a replacement within 30 days and performs the role itself until then (clause 8.4)."),
    ("Does the Trustee get paid for filling in?",
     "Yes, its usual fee of 0.15% a year of the Trust Fund, paid monthly, under clause 10.1."),
]
LATER_EXCHANGES = [
    ("Which clause covers winding up the trust?",
     "Clause 18.1: the trust ends on the Vesting Date, or earlier by unanimous resolution of the beneficiaries."),
    ("When is the Vesting Date?",
     "The Vesting Date is 30 June 2084, eighty years after the trust was settled (clause 1.1)."),
    ("Can the beneficiaries bring it forward?",
     "Only all of them together, by written resolution delivered to the Trustee (clause 18.2)."),
    ("What happens to the Trust Fund then?",
     "The Trustee realises the assets and distributes the proceeds in the Vesting Proportions (clause 18.4)."),
    ("How are the Vesting Proportions worked out?",
     "Clause 1.1 sets them by each beneficiary's units on the Vesting Date, as the Unit Register records them."),
    ("Who keeps the Unit Register?",
     "The Trust Manager keeps it at its registered office and updates it within five Business Days of a change."),
]
QUESTION = "Which clause covers winding up the trust?"
LATER_QUESTION = "Who pays the costs of winding up?"

CONDENSED = Condensed(
    summary="The user asked when the Determination Date falls (the 15th, clause 4.2; weekends roll to the "
            "next Business Day) and about the Trust Manager's and Trustee's duties and fees.",
    topics=["Determination Date", "Business Day", "Trust Manager"],
    key_questions=["What is the Determination Date?", "And what happens if it falls on a weekend?"],
    decisions=["A Determination Date on a weekend moves to the next Business Day."],
)
FOLDED = Condensed(
    summary="Determination Date: the 15th, weekends roll forward. The trust winds up on the Vesting Date, "
            "30 June 2084, or earlier by unanimous resolution; proceeds go out in the Vesting Proportions.",
    topics=["Determination Date", "Vesting Date", "winding up"],
    key_questions=["When is the Vesting Date?"],
    decisions=["Only all beneficiaries together can bring the Vesting Date forward."],
)


class ScriptedPrograms:
    """Stands in for docchat.context.programs.Programs: answers from a script and records every call."""

    def __init__(self, *condensed: Condensed | Exception):
        self._script = list(condensed)
        self.condensed: list[dict] = []
        self.rewritten: list[dict] = []
        self.titled: list[dict] = []

    def condense(self, previous_summary: str, conversation: str, *, max_tokens: int) -> Condensed:
        self.condensed.append(dict(previous_summary=previous_summary, conversation=conversation, max_tokens=max_tokens))
        outcome = self._script.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    def rewrite(self, recent_turns: str, question: str, *, max_tokens: int) -> str:
        self.rewritten.append(dict(recent_turns=recent_turns, question=question, max_tokens=max_tokens))
        return question

    def title(self, first_exchange: str, *, max_tokens: int) -> str:
        self.titled.append(dict(first_exchange=first_exchange, max_tokens=max_tokens))
        return "Trust Determination Date Rules"


class FullBudgetCondenser(ScriptedPrograms):
    """A condenser that writes exactly as many tokens as it is allowed, as an LM cut at max_tokens does."""

    def __init__(self, counter):
        super().__init__()
        self._counter = counter

    def condense(self, previous_summary: str, conversation: str, *, max_tokens: int) -> Condensed:
        self.condensed.append(dict(previous_summary=previous_summary, conversation=conversation, max_tokens=max_tokens))
        return Condensed(text_of(self._counter, max_tokens), ["Determination Date"], ["What is it?"], [])


@lru_cache(maxsize=None)
def text_of(counter, tokens: int) -> str:
    """Prose about the trust that is exactly `tokens` tokens long (or one short, where a word is two)."""
    words = "The Determination Date moves to the next Business Day under clause 4.3 of the trust .".split()

    def say(n: int) -> str:
        return " ".join(words[i % len(words)] for i in range(n))

    low, high = 0, 4 * tokens + 8
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if counter.count_text(say(middle)) <= tokens else (low, middle - 1)
    return say(low)


def stored(counter, seq: int, role: Role, content: str) -> Message:
    return Message(
        id=str(uuid.uuid4()), conversation_id=CONVERSATION, seq=seq, role=role, content=content,
        created_at=utcnow(), token_count=counter.count_message(role.value, content), tokenizer=counter.id,
    )


def conversation(counter, exchanges, question: str, *, first_seq: int = 1) -> list[Message]:
    """A tail as the memory hands it over: the stored exchanges, then the new question."""
    tail = []
    for asked, answered in exchanges:
        tail.append(stored(counter, first_seq + len(tail), Role.USER, asked))
        tail.append(stored(counter, first_seq + len(tail), Role.ASSISTANT, answered))
    tail.append(stored(counter, first_seq + len(tail), Role.USER, question))
    return tail


def tokens(messages: list[Message]) -> int:
    return sum(m.token_count for m in messages)


def window(engine: ContextEngine, counter, tail: list[Message], *, history_share: int,
           summary: Summary | None = None, answer_reserve: int = RESERVE) -> int:
    """The smallest max_model_len at which the plan gives the history exactly `history_share` tokens.

    Each extra token of window adds one to the history's share, less one whenever a clipped
    summary's cap grows, so every share is reached by counting up.
    """
    summary_tokens = counter.count_message("system", prompt.summary_text(summary)) if summary else 0
    for max_model_len in itertools.count(history_share + answer_reserve):
        try:
            budget = plan(max_model_len=max_model_len, answer_reserve=answer_reserve, template=engine.template_tokens,
                          system=engine.system_tokens(), summary=summary_tokens, chunks=0,
                          question=tail[-1].token_count)
        except InvalidInput:  # too small a window for the system prompt or the question yet
            continue
        if budget.history_share == history_share:
            return max_model_len
        assert budget.history_share < history_share


def prompt_tokens(counter, messages: list[dict]) -> int:
    """What the server will count: every ChatML message plus the generation prompt."""
    return sum(counter.count_message(m["role"], m["content"]) for m in messages) + counter.generation_prompt_tokens


def sent(messages: list[Message]) -> list[dict]:
    return [{"role": m.role.value, "content": m.model_text} for m in messages]


def compacted_once(counter):
    """A first compaction just past the threshold: (the tail, the assembly, the scripted programs)."""
    programs = ScriptedPrograms(CONDENSED)
    engine = ContextEngine(counter, programs, system_prompt=SYSTEM_PROMPT)
    tail = conversation(counter, EXCHANGES, QUESTION)
    share = math.ceil(tokens(tail[:-1]) / 0.95) - 1
    assembly = engine.assemble(conversation_id=CONVERSATION, tail=tail, summary=None,
                               max_model_len=window(engine, counter, tail, history_share=share),
                               answer_reserve=RESERVE)
    return tail, assembly, programs


def test_below_95_percent_of_the_history_share_nothing_is_condensed_and_the_whole_tail_is_sent(qwen_counter):
    programs = ScriptedPrograms(CONDENSED)
    engine = ContextEngine(qwen_counter, programs, system_prompt=SYSTEM_PROMPT)
    tail = conversation(qwen_counter, EXCHANGES, QUESTION)
    share = math.ceil(tokens(tail[:-1]) / 0.95)  # the history is exactly at, not above, 95%

    assembly = engine.assemble(conversation_id=CONVERSATION, tail=tail, summary=None,
                               max_model_len=window(engine, qwen_counter, tail, history_share=share),
                               answer_reserve=RESERVE)

    assert assembly.plan.history_share == share
    assert programs.condensed == []
    assert assembly.new_summary is None and assembly.truncated == 0
    assert assembly.messages == [{"role": "system", "content": SYSTEM_PROMPT}, *sent(tail)]


def test_above_95_percent_of_the_history_share_the_condenser_is_called_once(qwen_counter):
    _, assembly, programs = compacted_once(qwen_counter)

    assert len(programs.condensed) == 1
    assert programs.condensed[0]["previous_summary"] == ""
    assert assembly.new_summary is not None


def test_the_condenser_reads_the_older_turns_and_not_the_four_kept_verbatim(qwen_counter):
    tail, _, programs = compacted_once(qwen_counter)
    older, recent = tail[:-5], tail[-5:-1]

    conversation_text = programs.condensed[0]["conversation"]

    assert f"assistant: {older[-1].content}" in conversation_text
    assert all(m.content not in conversation_text for m in recent)


def test_the_condenser_reads_the_older_turns_as_role_and_text_lines_oldest_first(qwen_counter):
    tail, _, programs = compacted_once(qwen_counter)
    older = tail[:-5]

    assert programs.condensed[0]["conversation"] == "\n".join(f"{m.role.value}: {m.content}" for m in older)


def test_in_a_32k_window_the_first_compaction_still_shows_the_condenser_the_first_question(qwen_counter):
    reserve = 8_192  # ChatService.reserve_for(32_768): a quarter of the window
    programs = ScriptedPrograms(CONDENSED)
    engine = ContextEngine(qwen_counter, programs, system_prompt=SYSTEM_PROMPT)
    opening = ("Which trust agreement are we reading?", "The Harbour Street Trust Agreement of 12 March 2004.")
    exchanges = [opening]
    exchanges += [(f"What does clause {n}.1 say about the Trust Fund?",
                   f"Clause {n}.1 sets the rules for item {n} of the Trust Fund schedule, which the Trustee "
                   f"reviews on each Determination Date.") for n in range(2, 600)]
    full = conversation(qwen_counter, exchanges, QUESTION)
    share = plan(max_model_len=32_768, answer_reserve=reserve, template=engine.template_tokens,
                 system=engine.system_tokens(), summary=0, chunks=0, question=full[-1].token_count).history_share
    # the history just past 95% of its share: the ordinary first compaction of a long conversation
    ends = next(n for n in range(2, len(full), 2) if tokens(full[:n]) > 0.95 * share)
    tail = full[:ends] + [full[-1]]

    engine.assemble(conversation_id=CONVERSATION, tail=tail, summary=None, max_model_len=32_768,
                    answer_reserve=reserve)

    older_tokens = tokens(tail[:-5])
    assert older_tokens + 600 < 32_768 - 512  # the older turns, DSPy's instructions and the summary fit one call
    assert programs.condensed[0]["conversation"].startswith("user: Which trust agreement are we reading?")


def test_a_compaction_returns_a_first_summary_covering_exactly_the_older_messages(qwen_counter):
    tail, assembly, _ = compacted_once(qwen_counter)
    older = tail[:-5]
    summary = assembly.new_summary

    assert summary.version == 1
    assert (summary.first_seq, summary.last_seq) == (older[0].seq, older[-1].seq) == (1, 12)
    assert summary.conversation_id == CONVERSATION
    assert summary.content == CONDENSED.summary
    assert summary.metadata["topics"] == CONDENSED.topics
    assert summary.metadata["key_questions"] == CONDENSED.key_questions
    assert summary.metadata["decisions"] == CONDENSED.decisions
    assert summary.token_count == qwen_counter.count_message("system", prompt.summary_text(summary))
    assert summary.tokenizer == qwen_counter.id


def test_after_a_compaction_the_prompt_is_system_summary_the_last_four_messages_and_the_question(qwen_counter):
    tail, assembly, _ = compacted_once(qwen_counter)
    recent, question = tail[-5:-1], tail[-1]

    assert assembly.summary == assembly.new_summary
    assert assembly.history == recent
    assert assembly.truncated == 0
    assert assembly.messages == [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "system", "content": prompt.summary_text(assembly.new_summary)},
        *sent(recent),
        {"role": "user", "content": question.content},
    ]


def test_a_condenser_without_metadata_gets_topics_and_key_questions_from_the_older_turns(qwen_counter):
    programs = ScriptedPrograms(Condensed(CONDENSED.summary))
    engine = ContextEngine(qwen_counter, programs, system_prompt=SYSTEM_PROMPT)
    tail = conversation(qwen_counter, EXCHANGES, QUESTION)
    share = math.ceil(tokens(tail[:-1]) / 0.95) - 1

    summary = engine.assemble(conversation_id=CONVERSATION, tail=tail, summary=None,
                              max_model_len=window(engine, qwen_counter, tail, history_share=share),
                              answer_reserve=RESERVE).new_summary

    older_questions = [m.content for m in tail[:-5] if m.role is Role.USER]
    assert summary.metadata["key_questions"] == older_questions[-5:]
    assert summary.metadata["topics"] and len(summary.metadata["topics"]) <= 6
    assert "determination" in [topic.lower() for topic in summary.metadata["topics"]]
    assert summary.metadata["decisions"] == []


def test_a_second_compaction_folds_the_previous_summary_into_version_two(qwen_counter):
    _, first, _ = compacted_once(qwen_counter)
    version_1 = first.new_summary
    kept = first.history
    programs = ScriptedPrograms(FOLDED)
    engine = ContextEngine(qwen_counter, programs, system_prompt=SYSTEM_PROMPT)
    # the tail after version 1: the four turns it kept, then the question it answered and five more exchanges
    later = conversation(qwen_counter, LATER_EXCHANGES, LATER_QUESTION, first_seq=kept[-1].seq + 1)
    tail = kept + later
    share = math.ceil(tokens(tail[:-1]) / 0.95) - 1

    assembly = engine.assemble(conversation_id=CONVERSATION, tail=tail, summary=version_1,
                               max_model_len=window(engine, qwen_counter, tail, history_share=share, summary=version_1),
                               answer_reserve=RESERVE)

    version_2 = assembly.new_summary
    assert programs.condensed[0]["previous_summary"] == version_1.content
    assert version_2.version == 2
    assert version_2.first_seq == version_1.first_seq == 1
    assert version_2.last_seq == tail[-6].seq
    assert version_2.metadata["folds_in_version"] == 1
    assert version_2.content == FOLDED.summary
    assert assembly.messages[1] == {"role": "system", "content": prompt.summary_text(version_2)}
    assert assembly.history == tail[-5:-1]


def test_when_the_condenser_fails_the_oldest_turns_are_left_out_and_the_prompt_fits(qwen_counter):
    programs = ScriptedPrograms(RuntimeError("vLLM answered 500: out of KV cache blocks"))
    engine = ContextEngine(qwen_counter, programs, system_prompt=SYSTEM_PROMPT)
    tail = conversation(qwen_counter, EXCHANGES, QUESTION)
    history = tail[:-1]
    max_model_len = window(engine, qwen_counter, tail, history_share=tokens(history) * 2 // 3)

    assembly = engine.assemble(conversation_id=CONVERSATION, tail=tail, summary=None,
                               max_model_len=max_model_len, answer_reserve=RESERVE)

    assert len(programs.condensed) == 1
    assert assembly.condense_error == "RuntimeError: vLLM answered 500: out of KV cache blocks"
    assert assembly.new_summary is None
    assert assembly.truncated > 0
    assert assembly.history == history[assembly.truncated:]
    assert assembly.messages[0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert assembly.messages[-1] == {"role": "user", "content": QUESTION}
    assert prompt_tokens(qwen_counter, assembly.messages) + RESERVE <= max_model_len


def test_when_the_condenser_fails_the_summary_in_force_is_still_sent(qwen_counter):
    summary = Summary(
        id="summary-1", conversation_id=CONVERSATION, version=1, first_seq=1, last_seq=8,
        content="Earlier the user read clauses 1 to 3: parties, definitions and the trust's purpose.",
        created_at=utcnow(),
    )
    programs = ScriptedPrograms(TimeoutError("the condenser took longer than 30 s"))
    engine = ContextEngine(qwen_counter, programs, system_prompt=SYSTEM_PROMPT)
    tail = conversation(qwen_counter, EXCHANGES, QUESTION, first_seq=9)
    max_model_len = window(engine, qwen_counter, tail, history_share=tokens(tail[:-1]) // 2, summary=summary)

    assembly = engine.assemble(conversation_id=CONVERSATION, tail=tail, summary=summary,
                               max_model_len=max_model_len, answer_reserve=RESERVE)

    assert assembly.condense_error.startswith("TimeoutError")
    assert assembly.truncated > 0
    assert assembly.messages[:2] == [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "system", "content": prompt.summary_text(summary)},
    ]
    assert prompt_tokens(qwen_counter, assembly.messages) + RESERVE <= max_model_len


def test_without_programs_the_oldest_turns_are_truncated_and_nothing_is_condensed(qwen_counter):
    engine = ContextEngine(qwen_counter, None, system_prompt=SYSTEM_PROMPT)
    tail = conversation(qwen_counter, EXCHANGES, QUESTION)
    history = tail[:-1]
    max_model_len = window(engine, qwen_counter, tail, history_share=tokens(history) // 2)

    assembly = engine.assemble(conversation_id=CONVERSATION, tail=tail, summary=None,
                               max_model_len=max_model_len, answer_reserve=RESERVE)

    assert assembly.new_summary is None and assembly.condense_error is None
    assert assembly.truncated > 0
    assert assembly.history == history[assembly.truncated:]
    assert tokens(assembly.history) <= assembly.plan.history_share
    assert prompt_tokens(qwen_counter, assembly.messages) + RESERVE <= max_model_len


def test_a_condenser_that_uses_its_whole_output_budget_never_pushes_the_prompt_past_the_window(qwen_counter):
    programs = FullBudgetCondenser(qwen_counter)
    engine = ContextEngine(qwen_counter, programs, system_prompt=SYSTEM_PROMPT)
    quotes = [(f"Quote clause {n} of the trust agreement in full, please.", text_of(qwen_counter, 300))
              for n in range(1, 7)]
    tail = conversation(qwen_counter, quotes, QUESTION)

    overflows = []
    for max_model_len in range(950, 1_400):
        assembly = engine.assemble(conversation_id=CONVERSATION, tail=tail, summary=None,
                                   max_model_len=max_model_len, answer_reserve=RESERVE)
        assert assembly.new_summary is not None
        sent_tokens = prompt_tokens(qwen_counter, assembly.messages)
        if sent_tokens + RESERVE > max_model_len:
            overflows.append((max_model_len, sent_tokens + RESERVE))

    assert overflows == []


def test_a_summary_written_for_a_larger_window_does_not_overflow_a_smaller_one(qwen_counter):
    # written under the gpu profile (262K window, 512-token summaries), now served by the cpu profile's 2,048
    summary = Summary(
        id="summary-3", conversation_id=CONVERSATION, version=3, first_seq=1, last_seq=40,
        content=text_of(qwen_counter, 512), created_at=utcnow(),
    )
    engine = ContextEngine(qwen_counter, ScriptedPrograms(CONDENSED), system_prompt=SYSTEM_PROMPT)
    tail = conversation(qwen_counter, EXCHANGES * 3, QUESTION, first_seq=41)

    assembly = engine.assemble(conversation_id=CONVERSATION, tail=tail, summary=summary,
                               max_model_len=2_048, answer_reserve=512)

    assert prompt_tokens(qwen_counter, assembly.messages) + 512 <= 2_048


def test_truncation_keeps_the_longest_recent_run_within_the_share_counting_uncounted_messages_as_free():
    from docchat.context.engine import _fit

    counts = [40, None, 25, 0, 60, 15, None, 30]
    history = [Message(id=str(uuid.uuid4()), conversation_id=CONVERSATION, seq=seq, role=Role.USER,
                       content=f"question {seq}", created_at=utcnow(), token_count=count)
               for seq, count in enumerate(counts, start=1)]

    def longest_recent_run(share: int) -> list[Message]:
        runs = [history[start:] for start in range(len(history) + 1)]
        return next(run for run in runs if sum(m.token_count or 0 for m in run) <= share)

    for share in range(0, 200):
        assert _fit(history, share) == longest_recent_run(share), share
