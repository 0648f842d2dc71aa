"""A number the model wrote that no source holds (issue 54): counted with the answer's check and
marked where the user reads the answer: the terminal and the Markdown export (the page: e2e)."""

from __future__ import annotations

from dataclasses import replace

from docchat.cli.terminal import print_outcome
from docchat.cli.terminal_backends import Outcome
from docchat.domain import Grounding, Role
from docchat.exchange import to_markdown
from docchat.exchange.citation_wire import check_to_api
from docchat.services.grounding import CitationChecker

from tests.unit.exchange_data import conversation, message, messages
from tests.unit.fakes import FakeLibrary, WordsEmbedder, chunk
from tests.unit.test_pipeline import Setup

DEPOT = [replace(chunk("depot-stock.md", 0, "The Tromsø depot holds 1,840 pallets of fish boxes and 312 of ice."),
                 similarity=0.7, coverage=1.0)]


def _answered(reply: str, question: str = "How many pallets does the Tromsø depot hold?"):
    setup = Setup(FakeLibrary(*DEPOT), checker=CitationChecker(WordsEmbedder()))
    setup.gateway.enqueue([reply])
    return setup.ask(question).answer


def test_a_number_no_source_holds_is_kept_with_the_check_where_it_stands_and_the_others_are_counted():
    answer = _answered("The depot holds 1840 pallets of boxes and 2,152 in all [1].")

    numbers = answer.facts.grounding.numbers
    assert [(n.written, answer.content[n.start:n.end]) for n in numbers.not_found] == [("2,152", "2,152")]
    assert check_to_api(answer.facts.grounding)["numbers"] == {
        "stated": 2, "found": 1, "not_found": 1, "not_found_numbers": ["2,152"],
        "marks": [{"written": "2,152", "start": 42, "end": 47}]}


def test_the_question_s_own_numbers_are_in_the_sources():
    answer = _answered("Yes, more than 1,000 pallets [1].", "Does the depot hold more than 1,000 pallets?")

    assert answer.facts.grounding.numbers.not_found == ()


def test_the_markdown_export_marks_the_number_where_it_stands_and_says_so_under_the_answer():
    answered = _answered("The depot holds 1840 pallets of boxes and 2,152 in all [1].")
    kept = message(3, Role.ASSISTANT, answered.content, citations=answered.facts.citations,
                   grounding=answered.facts.grounding)

    lines = to_markdown(conversation(), [*messages()[:2], kept]).splitlines()

    assert "The depot holds 1840 pallets of boxes and 2,152 *(not in the sources)* in all [1]." in lines
    assert any(line.startswith("> Not in the sources: 2,152 (1 of the 2 numbers the model wrote;") for line in lines)


def test_the_terminal_says_which_numbers_no_source_holds(capsys):
    grounding = _answered("The depot holds 1840 pallets of boxes and 2,152 in all [1].").facts.grounding

    print_outcome(Outcome("complete", check=grounding))

    assert "  ! Not in the sources: 2,152 (1 of the 2 numbers the model wrote;" in capsys.readouterr().out


def test_an_answer_checked_before_numbers_were_says_nothing_of_them(capsys):
    print_outcome(Outcome("complete", check=Grounding.from_dict({"cited": [1], "sentences": []})))

    assert "Not in the sources" not in capsys.readouterr().out


def test_a_free_answer_citing_its_passage_but_stating_a_number_no_source_holds_counts_against_the_model(tmp_path):
    from docchat.context.citing import CITE, CitationGate
    from docchat.domain import AnswerForm
    from docchat.llm.skill_record import JsonSkillRecord

    record = JsonSkillRecord(tmp_path)
    setup = Setup(FakeLibrary(*DEPOT), checker=CitationChecker(WordsEmbedder()), citation_gate=CitationGate(record))
    forms = []
    for reply in ("The depot holds 1,840 pallets [1].", "The depot holds 2,152 pallets [1]."):
        setup.gateway.enqueue([reply])
        forms.append(setup.ask("How many pallets does the Tromsø depot hold?").answer.facts.form)
        setup.chat.wait_for_background(5)

    # Tried unseen in its own words (the server takes no pattern) while the user reads quotes.
    assert forms == [AnswerForm.QUOTED, AnswerForm.QUOTED]
    assert record.tally("tiny", CITE) == (1, 1)  # the second cited its passage, and wrote a number it lacks
