"""The answer pipeline with fakes of its ports: passage budget, whole documents, stateless answers."""

from __future__ import annotations

import random

import pytest

from docchat.context.engine import ContextEngine
from docchat.context.pipeline import PASSAGE_FRAME_TOKENS, AnswerPipeline, PassageLimits
from docchat.context.planner import Caps
from docchat.domain import AnswerFacts, Citation, Conversation, Message, Role, Status, utcnow
from docchat.errors import InvalidInput, LLMUnavailable
from docchat.services.chat import ChatService
from docchat.services.conversation_log import ConversationLog
from docchat.services.conversations import ConversationService
from docchat.services.messages import MessageService
from docchat.services.stateless import StatelessChat

from tests.unit.fakes import FakeGateway, FakeLibrary, FakeUnitOfWork, WordCounter, chunk

SYSTEM = "You answer questions from the documents and cite them by number."
RESERVE = 128

TRUST = [
    chunk("Trust Agreement", 0, "The Determination Date is the 15th calendar day of each month.", page=2),
    chunk("Trust Agreement", 1, "If the Determination Date falls on a weekend it moves to the next Business Day.",
          page=2),
    chunk("Trust Agreement", 2, "The Payment Date is the second Business Day after the Determination Date.", page=3),
]


def filler(document: str, count: int, words: int = 60) -> list:
    """Chunks about the reserve account, each `words` words long, on pages of their own."""
    return [chunk(document, n, " ".join(["reserve account shortfall"] * (words // 3)) + f" item {n}.", page=n + 1)
            for n in range(count)]


class Setup:
    def __init__(self, library: FakeLibrary, *, window: int = 2_048, caps: Caps = Caps(),
                 limits: PassageLimits = PassageLimits(), titler=None, rewriter=None, rewrite_gate=None,
                 rounds: bool = False, citation_gate=None, constrains: bool = False, checker=None, queries=None):
        self.counter = WordCounter()
        self.uow = FakeUnitOfWork()
        self.gateway = FakeGateway(max_model_len=window, counter=self.counter, constrains=constrains, model="tiny")
        self.log = ConversationLog(self.uow, self.counter)
        self.conversations = ConversationService(self.uow, self.counter, self.log)
        self.messages = MessageService(self.uow, self.counter, self.log)
        engine = ContextEngine(self.counter, None, system_prompt=SYSTEM, caps=caps)
        self.pipeline = AnswerPipeline(engine, self.counter, retriever=library, figures=library, limits=limits, programs=rewriter,
                                       rewrite_gate=rewrite_gate, gateway=self.gateway if rounds else None,
                                       queries=queries)
        self.chat = ChatService(self.conversations, self.messages, self.log, self.uow, self.gateway, self.counter,
                                self.pipeline, answer_reserve=RESERVE, programs=titler,
                                checker=checker, citation_gate=citation_gate)
        self.stateless = StatelessChat(self.chat, self.pipeline, self.counter, self.gateway)

    def ask(self, question: str, conversation_id: str | None = None, *, form=None):
        turn = self.chat.answer(conversation_id, question, form=form)
        turn.text()
        return turn

    def prompt(self, index: int = -1) -> list[dict]:
        return self.gateway.requests[index][0]


def test_a_small_library_goes_in_whole_right_after_the_system_prompt_and_the_question_alone_in_the_turn():
    setup = Setup(FakeLibrary(*TRUST))

    turn = setup.ask("When is the Determination Date?")

    prompt = setup.prompt()
    assert turn.budget.mode == "documents" and turn.budget.passages == 2  # page 2 (merged), page 3
    assert prompt[1]["role"] == "system"
    assert "[1] Trust Agreement, page 2: The Determination Date is the 15th" in prompt[1]["content"]
    assert "[2] Trust Agreement, page 3: The Payment Date" in prompt[1]["content"]
    assert prompt[-1] == {"role": "user", "content": "When is the Determination Date?"}
    assert [c.number for c in turn.answer.facts.citations][:1] == [1]
    assert turn.budget.chunks == setup.counter.count_message("system", prompt[1]["content"])


def test_the_next_turn_with_a_document_block_extends_the_previous_prompt_and_its_answer_exactly():
    setup = Setup(FakeLibrary(*TRUST))
    setup.gateway.enqueue(["The 15th ", "of each month [1]."])
    first = setup.ask("When is the Determination Date?")

    setup.ask("And the Payment Date?", first.conversation_id)

    before, after = setup.prompt(0), setup.prompt(1)
    assert after[:len(before)] == before
    assert after[len(before)] == {"role": "assistant", "content": "The 15th of each month [1]."}
    assert after[len(before) + 1:] == [{"role": "user", "content": "And the Payment Date?"}]


def test_documents_too_large_for_the_passage_budget_fall_back_to_passages_in_the_user_turn():
    library = FakeLibrary(*TRUST, *filler("Reserve Manual", 40))
    setup = Setup(library)

    turn = setup.ask("When is the Determination Date?")

    prompt = setup.prompt()
    assert turn.budget.mode == "passages"
    assert [m["role"] for m in prompt] == ["system", "user"]
    assert prompt[-1]["content"].startswith("Context:\n[1] Trust Agreement, page 2: The Determination Date is")
    assert prompt[-1]["content"].endswith("Question: When is the Determination Date?")
    # The two chunks of page 2 are one passage, without the words they share repeated.
    assert turn.answer.facts.citations[0].text.count("The Determination Date is the 15th") == 1
    question = setup.messages.history(turn.conversation_id)[0]
    assert question.content == "When is the Determination Date?" and question.sent_content == prompt[-1]["content"]


def test_passages_fill_their_budget_not_a_fixed_number_and_the_meter_shows_their_share():
    setup = Setup(FakeLibrary(*filler("Reserve Manual", 60, words=30)), window=4_096)

    turn = setup.ask("What covers a reserve account shortfall?")

    budget = turn.budget
    assert budget.mode == "passages" and budget.passages > 10
    assert budget.chunks <= budget.chunks_cap
    # What is left is less than one more passage (its 32 words, "[n]" and "Reserve Manual, page
    # N:" make 37) and the small margin kept for the frame around the passages.
    assert budget.chunks_cap - budget.chunks < 37 + PASSAGE_FRAME_TOKENS
    assert budget.chunks + budget.question == setup.counter.count_message("user", setup.prompt()[-1]["content"])


def test_a_long_retrieval_never_makes_a_short_question_too_long():
    setup = Setup(FakeLibrary(*filler("Reserve Manual", 200, words=90)), caps=Caps(chunks=0.9, question=0.05))

    turn = setup.ask("What covers a shortfall in the reserve account?")

    assert turn.answer.status is Status.COMPLETE and turn.budget.passages >= 2


def test_a_question_over_its_own_cap_is_refused_and_nothing_is_stored():
    setup = Setup(FakeLibrary(*TRUST))

    with pytest.raises(InvalidInput, match="too long"):
        setup.chat.answer(None, "word " * 2_000)

    assert setup.uow.conversations.conversations == {} and setup.gateway.requests == []


def test_the_passage_floor_is_given_even_when_the_cap_is_smaller_than_one_passage():
    setup = Setup(FakeLibrary(*filler("Reserve Manual", 30, words=90)), caps=Caps(chunks=0.01),
                  limits=PassageLimits(floor=2, ceiling=8))

    turn = setup.ask("Which reserve account shortfall item applies?")

    assert turn.budget.passages == 2 and turn.budget.chunks > turn.budget.chunks_cap
    assert setup.gateway.prompt_tokens(setup.prompt()) + RESERVE <= 2_048


@pytest.mark.parametrize("seed", range(8))
def test_no_prompt_exceeds_the_window_at_any_passage_budget(seed):
    draw = random.Random(seed)
    window = draw.choice([1_024, 2_048, 4_096])
    library = FakeLibrary(*[chunk(f"Book {n % 5}", n, " ".join(["reserve"] * draw.randint(5, 300)), page=n + 1)
                            for n in range(80)])
    setup = Setup(library, window=window, caps=Caps(chunks=draw.uniform(0.0, 0.9), question=0.05),
                  limits=PassageLimits(floor=draw.randint(0, 6), ceiling=draw.randint(1, 64)))
    conversation_id = None
    for number in range(6):
        turn = setup.ask(f"What does reserve item {number} say about the reserve?", conversation_id)
        conversation_id = turn.conversation_id
        sent = setup.gateway.prompt_tokens(setup.prompt())
        assert sent == turn.budget.prompt
        assert sent + turn.budget.answer_reserve <= window


def test_a_stateless_answer_retrieves_and_cites_like_a_stored_one_and_writes_nothing():
    setup = Setup(FakeLibrary(*TRUST, *filler("Reserve Manual", 40)))
    history = [{"role": "user", "content": "What is the Determination Date?"},
               {"role": "assistant", "content": "The 15th calendar day of each month."}]

    turn = setup.stateless.answer(history, "What if it falls on a weekend?")
    turn.text()

    assert turn.budget.mode == "passages"
    assert any("moves to the next Business Day" in c.text for c in turn.answer.facts.citations)
    assert turn.answer.content == "fine." and turn.conversation_id is None
    assert turn.budget.history_messages == 2
    assert (setup.uow.opened, setup.uow.commits) == (0, 0)


def test_stateless_and_stored_answers_send_the_same_prompt_for_the_same_conversation():
    stored, stateless = Setup(FakeLibrary(*TRUST)), Setup(FakeLibrary(*TRUST))
    first = stored.ask("When is the Determination Date?")
    stored.ask("And the Payment Date?", first.conversation_id)

    stateless.stateless.answer([], "When is the Determination Date?").text()
    stateless.stateless.answer([{"role": "user", "content": "When is the Determination Date?"},
                                {"role": "assistant", "content": "fine."}], "And the Payment Date?").text()

    assert stored.prompt(1) == stateless.prompt(1)


class Titler:
    """The DSPy programs as the chat service uses them after an answer: only the titler."""

    def __init__(self, title: str):
        self.titled: list[str] = []
        self._title = title

    def title(self, exchange: str, *, max_tokens: int) -> str:
        self.titled.append(exchange)
        return self._title


def test_the_first_exchange_is_titled_after_the_answer_without_holding_it_up():
    titler = Titler("Trust Determination Date")
    setup = Setup(FakeLibrary(*TRUST), titler=titler)

    turn = setup.ask("When is the Determination Date?")
    setup.chat.wait_for_background(5)

    assert turn.answer.status is Status.COMPLETE
    assert setup.conversations.get(turn.conversation_id).title == "Trust Determination Date"
    assert titler.titled == ["user: When is the Determination Date?\nassistant: fine."]


def test_an_unreachable_server_keeps_the_question_and_stores_why_the_answer_failed():
    setup = Setup(FakeLibrary(*TRUST))
    setup.gateway.down = LLMUnavailable("the LLM server is not running at http://fake/v1")

    turn = setup.chat.answer(None, "When is the Determination Date?")
    with pytest.raises(LLMUnavailable):
        turn.text()

    question, answer = setup.messages.history(turn.conversation_id)
    assert question.content == "When is the Determination Date?"
    assert (answer.status, answer.facts.error) == (Status.ERROR, "the LLM server is not running at http://fake/v1")


def test_a_conversation_imported_with_old_style_citations_can_still_be_continued():
    setup = Setup(FakeLibrary(*TRUST))
    store, now = setup.uow.conversations, utcnow()
    store.add_conversation(Conversation(id="imported", title="Imported trust questions", created_at=now, updated_at=now))
    for role, text, cited in ((Role.USER, "When is the Determination Date?", []),
                              # Older exports carried `page` and `quote`, and no chunk id.
                              (Role.ASSISTANT, "The 15th.", [{"page": 2, "quote": "the 15th"}])):
        store.append_message(Message(id=f"imported-{role}", conversation_id="imported", seq=0, role=role, content=text,
                                     created_at=now, token_count=setup.counter.count_message(role, text),
                                     tokenizer=setup.counter.id,
                                     facts=AnswerFacts(citations=[Citation.from_dict(c, number=1) for c in cited])))

    follow_up = setup.ask("And the Payment Date?", "imported")

    assert follow_up.answer.status is Status.COMPLETE


def test_a_turn_says_what_it_is_doing_before_the_first_token_and_keeps_its_figures_with_the_answer():
    setup = Setup(FakeLibrary(*filler("Reserve Manual", 40)))
    first = setup.ask("What is the reserve account?")
    stages = []

    turn = setup.chat.answer(first.conversation_id, "And its shortfall?", progress=stages.append)
    turn.text()

    assert stages == ["Searching your documents…", "Fitting the conversation into the window…"]
    stored = setup.messages.history(first.conversation_id)[-1]
    assert (stored.facts.budget, stored.facts.stats) == (turn.budget, turn.stats)
    assert stored.facts.budget.mode == "passages"


def test_an_answer_cut_at_the_token_limit_is_marked_and_continued_in_the_same_message():
    setup = Setup(FakeLibrary())
    setup.gateway.enqueue(["The Determination Date is ", "the 15th"], finish_reason="length")
    cut = setup.ask("When is the Determination Date?")
    assert cut.answer.status is Status.TRUNCATED

    setup.gateway.enqueue([" calendar day of each month."])
    continued = setup.chat.continue_answer(cut.conversation_id)
    continued.text()

    sent = setup.prompt()
    assert sent[-1] == {"role": "assistant", "content": "The Determination Date is the 15th"}
    assert setup.gateway.continued[-1] is True
    question, answer = setup.messages.history(cut.conversation_id)
    assert (answer.id, answer.status) == (cut.answer.id, Status.COMPLETE)
    assert answer.content == "The Determination Date is the 15th calendar day of each month."


def test_a_cut_answer_is_part_of_the_history_and_only_a_cut_answer_can_be_continued():
    setup = Setup(FakeLibrary())
    setup.gateway.enqueue(["The 15th of each"], finish_reason="length")
    cut = setup.ask("When is the Determination Date?")

    follow_up = setup.ask("And the Payment Date?", cut.conversation_id)

    assert {"role": "assistant", "content": "The 15th of each"} in setup.prompt()
    with pytest.raises(InvalidInput, match="only an answer cut at the length limit can be continued"):
        setup.chat.continue_answer(follow_up.conversation_id)


def test_a_conversation_s_instructions_follow_the_system_prompt_and_count_in_its_share():
    setup = Setup(FakeLibrary())
    plain = setup.ask("When is the Determination Date?")
    conversation_id = plain.conversation_id
    setup.conversations.set_instructions(conversation_id, "Answer in French, in one sentence.")

    instructed = setup.ask("And the Payment Date?", conversation_id)

    assert setup.prompt()[0] == {"role": "system", "content": f"{SYSTEM}\n\nAnswer in French, in one sentence."}
    assert instructed.budget.system == plain.budget.system + setup.counter.count_text("Answer in French, in one sentence.")
