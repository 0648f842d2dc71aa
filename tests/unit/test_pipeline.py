"""The answer pipeline with fakes of its ports: passage budget, whole documents, stateless answers."""

from __future__ import annotations

import random

import pytest

from docchat.context.engine import ContextEngine
from docchat.context.pipeline import LEFT_OUT_NO_MATCH, PASSAGE_FRAME_TOKENS, AnswerPipeline, PassageLimits
from docchat.context.planner import Caps
from docchat.domain import AnswerFacts, Citation, Conversation, Message, Role, Status, utcnow
from docchat.domain.approach import LOOKUP, Coverage, Figure, Way
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
                 rounds: bool = False):
        self.counter = WordCounter()
        self.uow = FakeUnitOfWork()
        self.gateway = FakeGateway(max_model_len=window, counter=self.counter)
        self.log = ConversationLog(self.uow, self.counter)
        self.conversations = ConversationService(self.uow, self.counter, self.log)
        self.messages = MessageService(self.uow, self.counter, self.log)
        engine = ContextEngine(self.counter, None, system_prompt=SYSTEM, caps=caps)
        self.pipeline = AnswerPipeline(engine, self.counter, retriever=library, limits=limits, programs=rewriter,
                                       rewrite_gate=rewrite_gate, gateway=self.gateway if rounds else None)
        self.chat = ChatService(self.conversations, self.messages, self.log, self.uow, self.gateway, self.counter,
                                self.pipeline, answer_reserve=RESERVE, programs=titler)
        self.stateless = StatelessChat(self.chat, self.pipeline, self.counter, self.gateway)

    def ask(self, question: str, conversation_id: str | None = None):
        turn = self.chat.answer(conversation_id, question)
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


def leases() -> list:
    """Two leases too long to go in whole; the 2024 one says "rent" far more often."""
    older = [chunk("lease-2024.md", n, " ".join(["rent is due monthly rent rent"] * 8) + f" clause {n}.", page=n + 1)
             for n in range(30)]
    newer = [chunk("lease-2025.md", n, " ".join(["the tenant pays rent quarterly"] * 8) + f" clause {n}.", page=n + 1)
             for n in range(30)]
    return older + newer


def test_a_question_comparing_two_documents_gives_each_its_passages_side_by_side():
    setup = Setup(FakeLibrary(*leases()), window=4_096)
    lookup = setup.ask("How is the rent paid?")
    assert {c.document for c in lookup.answer.facts.citations} == {"lease-2024.md"}  # the premise
    stages = []

    turn = setup.chat.answer(None, "Compare how rent is paid in lease 2025 and lease 2024", progress=stages.append)
    turn.text()

    documents = [c.document for c in turn.answer.facts.citations]
    assert stages[0] == "Comparing lease-2025.md and lease-2024.md…"
    assert set(documents) == {"lease-2024.md", "lease-2025.md"}
    # Side by side: every passage of the first named before any of the second, numbered in that order.
    assert documents == sorted(documents, key=lambda name: name != "lease-2025.md")
    assert abs(documents.count("lease-2024.md") - documents.count("lease-2025.md")) <= 1
    assert [c.number for c in turn.answer.facts.citations] == list(range(1, len(documents) + 1))
    assert turn.answer.facts.approach.names == ("lease-2025.md", "lease-2024.md")
    assert turn.answer.facts.coverage == Coverage(2, 2)


def test_a_question_about_every_document_reads_each_one_in_scope():
    manuals = [chunk(f"manual-{name}.md", n, " ".join([f"{name} warranty lasts two years"] * 10) + f" part {n}.",
                     page=n + 1)
               for name in ("kettle", "toaster", "blender", "mixer") for n in range(12)]
    setup = Setup(FakeLibrary(*manuals), window=4_096)
    lookup = setup.ask("How long is the warranty?")
    assert len({c.document for c in lookup.answer.facts.citations}) < 4  # the premise
    stages = []

    turn = setup.chat.answer(None, "How long is the warranty in each manual?", progress=stages.append)
    turn.text()

    assert stages[0] == "Reading all 4 documents in scope…"
    assert {c.document for c in turn.answer.facts.citations} == {
        "manual-kettle.md", "manual-toaster.md", "manual-blender.md", "manual-mixer.md"}
    assert (turn.answer.facts.approach.way, turn.answer.facts.coverage) == (Way.COLLECTION, Coverage(4, 4))


def test_the_collection_says_which_documents_it_left_out_and_why():
    manuals = [chunk(f"manual-{name}.md", n, " ".join([f"{name} warranty lasts two years"] * 10) + f" part {n}.",
                     page=n + 1)
               for name in ("kettle", "toaster", "blender") for n in range(12)]
    minutes = chunk("minutes-march.md", 0, "Board met Tuesday; agenda approved.")
    setup = Setup(FakeLibrary(*manuals, minutes), window=4_096)

    turn = setup.ask("How long is the warranty in each of my documents?")

    assert turn.answer.facts.coverage == Coverage(3, 4, (("minutes-march.md", LEFT_OUT_NO_MATCH),))


def reports(count: int) -> list:
    """Reports of one long passage each: about three fit the passage budget of a 2,048-token window."""
    return [chunk(f"report-{n}.md", 0, f"Report {n}: the audit found {n} issues. " + " ".join(["audit finding"] * 70))
            for n in range(1, count + 1)]


def test_a_collection_too_large_for_one_prompt_is_read_in_rounds_and_answered_from_their_notes():
    setup = Setup(FakeLibrary(*reports(7)), rounds=True)
    for n, first in ((1, 1), (2, 4), (3, 7)):
        setup.gateway.enqueue([f"Report {first}: the audit found {first} issues [{first}]."])
    setup.gateway.enqueue(["Every report found issues [1] [7]."])
    stages = []

    turn = setup.chat.answer(None, "What did each report find in the audit?", progress=stages.append)
    turn.text()

    rounds = [stage for stage in stages if "round" in stage]
    assert rounds == [f"Reading the documents in 3 rounds: round {n} of 3 ({k} documents)…"
                      for n, k in ((1, 3), (2, 3), (3, 1))]
    *asked, answered = setup.gateway.requests
    assert len(asked) == 3 and all(messages[0]["content"] == SYSTEM for messages, _ in asked)
    # Each round's passages are numbered as the answer cites them: 1-3, then 4-6, then 7.
    assert "[4] report-" in asked[1][0][-1]["content"] and "[1] report-" not in asked[1][0][-1]["content"]
    assert "Write short notes" in asked[0][0][-1]["content"]
    final = answered[0][-1]["content"]
    assert final.startswith("Notes taken from the documents in 3 rounds")
    assert "Report 4: the audit found 4 issues [4]." in final and final.endswith(
        "Question: What did each report find in the audit?")
    facts = turn.answer.facts
    assert facts.coverage == Coverage(7, 7, rounds=3)
    assert [c.number for c in facts.citations] == list(range(1, 8))
    assert len({c.document for c in facts.citations}) == 7
    assert turn.question.model_text == final  # kept as it was sent


def test_notes_the_passages_do_not_bear_out_are_replaced_by_the_passages_own_sentences():
    setup = Setup(FakeLibrary(*reports(7)), rounds=True)
    setup.gateway.enqueue(["Report 1: the audit found 1 issues [1].\nThe supplier of the supplier of the supplier [2].\n"
                           "Report 9 found nothing [12].\n2. [2] report-2.md, Body: ## Body"])
    setup.gateway.enqueue(["Supplier contracts: acme, borealis, cobalt [5]."])  # the round's numbers, not its words

    setup.ask("What did each report find in the audit?")

    final = setup.prompt()[-1]["content"]
    first, second = final.split("\n\nRound 2")[0], final.split("\n\nRound 2")[1]
    assert "Report 1: the audit found 1 issues [1]." in first and "supplier" not in first and "[12]" not in first
    assert "## Body" not in first  # a passage's name copied is no note
    assert "acme" not in second
    assert "report-4.md: \u201cReport 4: the audit found 4 issues.\u201d [4]" in second


def test_a_round_that_fails_leaves_the_collection_to_one_prompt_that_says_what_it_left_out():
    setup = Setup(FakeLibrary(*reports(7)), rounds=True)
    setup.gateway.enqueue([], failure=LLMUnavailable("the server went away"))

    turn = setup.chat.answer(None, "What did each report find in the audit?")
    turn.text()

    coverage = turn.answer.facts.coverage
    assert (coverage.rounds, coverage.documents_read) == (1, 3) and len(coverage.left_out) == 4
    assert setup.prompt()[-1]["content"].startswith("Context:\n[1] report-")


def test_a_collection_that_fits_whole_reads_every_document_whole():
    notes = [chunk(f"note-{n}.md", 0, f"Note {n}: the warranty lasts {n} years.") for n in range(3)]
    setup = Setup(FakeLibrary(*notes))

    turn = setup.ask("What does each note say about the warranty?")

    assert turn.budget.mode == "documents"
    assert turn.answer.facts.coverage == Coverage(3, 3)


def test_a_question_asked_again_with_another_plan_is_a_new_version_and_its_answer_follows_it():
    setup = Setup(FakeLibrary(*leases()), window=4_096)
    lookup = setup.ask("How is the rent paid?")
    stages = []

    again = setup.chat.retry(lookup.conversation_id, plan=Way.COMPARE, progress=stages.append)
    again.text()

    assert stages[0] == "Comparing lease-2024.md and lease-2025.md…"
    # The question is kept as it was sent, with the lookup's passages: it is asked again, a new version.
    assert again.question.version_of == lookup.question.id and again.question.content == lookup.question.content
    shown = [m.id for m in setup.messages.history(lookup.conversation_id) if m.shown]
    assert shown[-2:] == [again.question.id, again.answer.id] and lookup.question.id not in shown
    assert {c.document for c in again.answer.facts.citations} == {"lease-2024.md", "lease-2025.md"}
    assert again.answer.facts.coverage == Coverage(2, 2)


def test_a_chosen_plan_the_scope_cannot_give_is_refused_and_keeps_nothing():
    setup = Setup(FakeLibrary(*leases()[:30]), window=4_096)

    with pytest.raises(InvalidInput, match="a comparison needs two or more documents"):
        setup.chat.answer(None, "How is the rent paid?", plan=Way.COMPARE)

    assert setup.uow.conversations.conversations == {} and setup.gateway.requests == []


def stock() -> list:
    """A stock sheet's sections as chunks: rows 2-4 hold Oslo's, rows 5-7 the rest."""
    return [chunk("harbour-inventory.xlsx", 0, "Location | Pallets\nRow 2: Location: Oslo; Pallets: 120\n"
                  "Row 3: Location: Oslo; Pallets: 45\nRow 4: Location: Oslo subtotal; Pallets: 165",
                  label="Stock, rows 2-4"),
            chunk("harbour-inventory.xlsx", 1, "Location | Pallets\nRow 5: Location: Bergen; Pallets: 25\n"
                  "Row 6: Location: Pallets in transit; Pallets: 9\nRow 7: Location: Grand total; Pallets: 199",
                  label="Stock, rows 5-7")]


OSLO = Figure("harbour-inventory.xlsx", "harbour-inventory.xlsx", "Stock", "the total of Pallets where Location is Oslo",
              165, "SELECT SUM(\"Pallets\") ...", (2, 3))


def test_a_figure_asked_of_a_sheet_is_given_first_as_docchat_computed_it_then_the_rows_it_read():
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096)
    stages = []

    turn = setup.chat.answer(None, "How many pallets are in Oslo in total?", progress=stages.append)
    turn.text()

    assert stages[0] == "Computing from harbour-inventory.xlsx › Stock…"
    [figure, rows, *_] = turn.answer.facts.citations
    assert figure.text == ("Computed by docchat from harbour-inventory.xlsx › Stock, over rows 2-3 (subtotal and "
                           "total rows left out): the total of Pallets where Location is Oslo is 165.")
    assert rows.where == "Stock, rows 2-4" and figure.chunk_id == rows.chunk_id  # opens on the rows it read
    assert {c.document for c in turn.answer.facts.citations} == {"harbour-inventory.xlsx"}
    assert "[1] harbour-inventory.xlsx, Stock, rows 2-4: Computed by docchat" in setup.prompt()[-1]["content"]
    assert turn.answer.facts.approach.way is Way.TABLE
    assert turn.answer.facts.evidence.found  # the sheet holds the figure, however its words match the question


def test_a_figure_a_sheet_could_give_does_not_answer_a_question_about_another_document():
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096)

    turn = setup.ask("What is the total rent due monthly?")

    assert turn.answer.facts.approach is LOOKUP and turn.answer.facts.table is None
    assert {c.document for c in turn.answer.facts.citations} == {"lease-2024.md"}


def test_a_figure_is_computed_for_a_question_naming_its_sheet_though_other_passages_match_it_better():
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096)

    turn = setup.ask("What is the total in the stock sheet?")

    assert turn.answer.facts.approach.way is Way.TABLE and turn.answer.facts.table == OSLO


def test_a_figure_the_user_asks_for_is_computed_whatever_the_question_matches():
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096)

    turn = setup.chat.answer(None, "What is the total rent due monthly for pallets?", plan=Way.TABLE)
    turn.text()

    assert turn.answer.facts.approach.way is Way.TABLE and turn.answer.facts.table == OSLO


def test_a_figure_asked_for_where_none_can_be_computed_is_refused_and_keeps_nothing():
    setup = Setup(FakeLibrary(*stock()), window=4_096)

    with pytest.raises(InvalidInput, match="found no figure to compute from a sheet in scope"):
        setup.chat.answer(None, "Who counted the pallets?", plan=Way.TABLE)

    assert setup.uow.conversations.conversations == {} and setup.gateway.requests == []


def test_a_lookup_keeps_its_plan_and_no_coverage():
    setup = Setup(FakeLibrary(*leases()), window=4_096)

    turn = setup.ask("How is the rent paid?")

    assert (turn.answer.facts.approach, turn.answer.facts.coverage) == (LOOKUP, None)
