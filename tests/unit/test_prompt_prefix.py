"""The prompt layout is prefix-stable on token ids: each turn's prompt extends the previous one exactly."""

from __future__ import annotations

import uuid

from docchat.context import prompt
from docchat.domain import Message, Role, Summary, utcnow

CONVERSATION = "harbour-street-trust"
SYSTEM_PROMPT = (
    "You answer questions about the Harbour Street Trust Agreement. "
    "Use only the context given with each question and cite it as [1], [2]."
)

# (question, chunks retrieved for it, the answer the model generated)
TURNS = [
    ("What is the Determination Date?",
     ["Clause 4.2: The Determination Date is the 15th day of each calendar month."],
     "The Determination Date is the 15th day of each calendar month [1]."),
    ("And what happens if it falls on a weekend?",
     ["Clause 1.1: Business Day means a day on which banks are open for business in Sydney.",
      "Clause 4.3: If a Determination Date is not a Business Day, it is the next Business Day."],
     "It moves to the next Business Day [2], a day when Sydney banks are open [1]."),
    ("Who calculates the Distribution Amount?",
     ["Clause 5.1: The Trust Manager calculates the Distribution Amount on each Determination Date."],
     "The Trust Manager does, on each Determination Date [1]."),
    ("Can the Trustee delegate that?",
     ["Clause 7.3: The Trustee may delegate any of its powers to an agent but remains liable."],
     "Yes, to an agent, though the Trustee remains liable [1]."),
    ("Thanks. What notice do beneficiaries get?",
     ["Clause 9.1: Beneficiaries receive ten Business Days' written notice of any change."],
     "Ten Business Days' written notice of any change [1]."),
    ("Is email good enough?",
     ["Clause 15.2: Notices may be sent by email to an address the beneficiary has nominated."],
     "Yes, if the beneficiary nominated an email address [1]."),
    ("What if the Trust Manager resigns — who takes over?",
     ["Clause 8.4: The Trustee appoints a replacement within 30 days and acts in the meantime."],
     "The Trustee appoints a replacement within 30 days and fills in until then [1]."),
    ("Does the Trustee get a fee for filling in?",
     ["Clause 10.1: The Trustee's fee is 0.15% a year of the Trust Fund, paid monthly."],
     "Its usual fee applies: 0.15% a year of the Trust Fund, paid monthly [1]."),
    ("Which clause covers winding up?",
     ["Clause 18.1: The Trust ends on the Vesting Date or earlier by unanimous beneficiary resolution."],
     "Clause 18.1: on the Vesting Date, or earlier by unanimous resolution [1]."),
    ("Summarise the payment timeline for me.",
     ["Clause 5.4: Distributions are paid within five Business Days after the Determination Date."],
     "Calculated on the Determination Date [1], paid within five Business Days after it [1]."),
]


def stored(counter, seq: int, role: Role, content: str, sent_content: str | None = None) -> Message:
    text = sent_content if sent_content is not None else content
    return Message(
        id=str(uuid.uuid4()), conversation_id=CONVERSATION, seq=seq, role=role, content=content,
        created_at=utcnow(), token_count=counter.count_message(role.value, text), tokenizer=counter.id,
        sent_content=sent_content,
    )


def token_ids(counter, messages: list[dict]) -> list[int]:
    """The prompt as the server tokenises it: ChatML messages, each encoded on its own."""
    return [token for m in messages for token in counter.encode_message(m["role"], m["content"])]


def prompts_of_a_conversation(counter, summary: Summary | None = None) -> list[list[dict]]:
    """The prompt sent at each of the turns, building the history as the service does."""
    history: list[Message] = []
    prompts = []
    for question, chunks, answer in TURNS:
        asked = stored(counter, len(history) + 1, Role.USER, question, prompt.user_turn(question, chunks))
        prompts.append(prompt.build(SYSTEM_PROMPT, summary, history + [asked]))
        history += [asked, stored(counter, len(history) + 2, Role.ASSISTANT, answer)]
    return prompts


def extends(longer: list[int], shorter: list[int]) -> bool:
    return len(longer) > len(shorter) and longer[: len(shorter)] == shorter


def test_every_prompt_is_the_previous_prompt_plus_new_token_ids(qwen_counter):
    prompts = [token_ids(qwen_counter, messages) for messages in prompts_of_a_conversation(qwen_counter)]

    assert len(prompts) == len(TURNS)
    for n in range(len(prompts) - 1):
        assert extends(prompts[n + 1], prompts[n]), f"turn {n + 2} does not extend turn {n + 1}"


def test_the_prefix_holds_with_a_summary_in_force(qwen_counter):
    summary = Summary(
        id="s1", conversation_id=CONVERSATION, version=1, first_seq=1, last_seq=12,
        content="The user is reading the Harbour Street Trust Agreement, clauses 1 to 4.", created_at=utcnow(),
    )
    prompts = [token_ids(qwen_counter, messages) for messages in prompts_of_a_conversation(qwen_counter, summary)]

    for n in range(len(prompts) - 1):
        assert extends(prompts[n + 1], prompts[n]), f"turn {n + 2} does not extend turn {n + 1}"


def test_the_summary_sits_between_the_system_prompt_and_the_history(qwen_counter):
    summary = Summary(
        id="s1", conversation_id=CONVERSATION, version=1, first_seq=1, last_seq=12,
        content="The Determination Date is the 15th; weekends roll to the next Business Day.", created_at=utcnow(),
    )
    question = stored(qwen_counter, 13, Role.USER, "Who calculates the Distribution Amount?")

    messages = prompt.build(SYSTEM_PROMPT, summary, [question])

    assert messages == [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "system", "content": f"{prompt.SUMMARY_HEADING}\n{summary.content}"},
        {"role": "user", "content": "Who calculates the Distribution Amount?"},
    ]


def test_a_user_turn_puts_the_numbered_context_first_and_the_question_last():
    sent = prompt.user_turn("And what happens if it falls on a weekend?", [
        "Clause 1.1: Business Day means a day on which banks are open in Sydney.",
        "Clause 4.3: A Determination Date that is not a Business Day moves to the next one.",
    ])

    assert sent == (
        "Context:\n"
        "[1] Clause 1.1: Business Day means a day on which banks are open in Sydney.\n\n"
        "[2] Clause 4.3: A Determination Date that is not a Business Day moves to the next one.\n\n"
        "Question: And what happens if it falls on a weekend?"
    )


def test_a_user_turn_without_chunks_is_the_bare_question():
    assert prompt.user_turn("What is the Determination Date?", []) == "What is the Determination Date?"


def test_a_user_turn_sent_with_context_is_resent_byte_identical_while_the_bare_question_is_shown(qwen_counter):
    question, chunks, answer = TURNS[1]
    sent = prompt.user_turn(question, chunks)
    asked = stored(qwen_counter, 1, Role.USER, question, sent)
    answered = stored(qwen_counter, 2, Role.ASSISTANT, answer)
    follow_up = stored(qwen_counter, 3, Role.USER, "Who calculates the Distribution Amount?")

    first = prompt.build(SYSTEM_PROMPT, None, [asked])
    later = prompt.build(SYSTEM_PROMPT, None, [asked, answered, follow_up])

    assert asked.content == "And what happens if it falls on a weekend?"
    assert first[1]["content"] == sent
    assert later[1]["content"] == sent
    assert later[1]["content"].encode() == first[1]["content"].encode()
    assert later[2] == {"role": "assistant", "content": answer}


def test_context_in_the_system_prompt_would_break_the_prefix_so_the_check_can_fail(qwen_counter):
    """A baseline layout: each turn's retrieved context in the system prompt, bare questions in the history."""
    history: list[dict] = []
    prompts = []
    for question, chunks, answer in TURNS:
        system = SYSTEM_PROMPT + "\n\nContext:\n" + "\n".join(chunks)
        messages = [{"role": "system", "content": system}, *history, {"role": "user", "content": question}]
        prompts.append(token_ids(qwen_counter, messages))
        history += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]

    broken = [n for n in range(len(prompts) - 1) if not extends(prompts[n + 1], prompts[n])]

    assert broken == list(range(len(prompts) - 1))


def test_the_default_system_prompt_tells_the_model_to_say_when_the_passages_lack_the_answer():
    from docchat.config import Settings

    prompt = Settings().system_prompt
    assert "when they do not contain the answer, say that the documents do not contain it" in prompt
    # Fixed text: nothing that changes from turn to turn, so the prefix cache keeps it.
    assert not any(ch.isdigit() for ch in prompt.replace("[1]", ""))
