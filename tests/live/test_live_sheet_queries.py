"""A figure docchat's own queries do not compute, asked of the real served model as a query: what
it wrote is judged by what it gives, whatever that is, and the answer never waits on it."""

from docchat.context.model_queries import SKILL
from docchat.context.skill_gate import GIVE_UP_AFTER
from docchat.domain import FINISHED
from docchat.llm.skill_record import JsonSkillRecord

from tests.office_files import xlsx_of

STOCK = [["Location", "Item", "Pallets", "Unit price"], ["Oslo", "Cardboard boxes", 120, 4.5],
         ["Oslo", "Bubble wrap", 45, 12], ["Oslo subtotal", None, 165, None], ["Bergen", "Tape", 25, 2],
         ["Grand total", None, 190, None]]
# No column is named: docchat writes no query of its own for it.
QUESTION = "What is the total value of the stock held in Oslo?"


def test_the_served_model_s_query_is_judged_by_what_it_gives_and_not_asked_again_once_it_has_failed(
        live_services, live_settings):
    live_services.ingestion.ingest("harbour-inventory.xlsx", xlsx_of({"Stock": STOCK}))
    said: list[list[str]] = []

    turns, conversation = [], None  # one conversation: one title asked of the model, not three
    for _ in range(GIVE_UP_AFTER + 1):
        stages: list[str] = []
        turn = live_services.chat.answer(conversation, QUESTION, progress=stages.append)
        turn.text()
        turns.append(turn)
        said.append(stages)
        conversation = turn.conversation_id

    model = live_services.llm.status().model  # the answers may be docchat's own: its figure, or its quotes
    usable, unusable = JsonSkillRecord(live_settings.resolved_data_dir).tally(model, SKILL)
    asked = [stages.count("Asking the model for a query over Stock…") for stages in said]
    assert all(turn.answer.status in FINISHED and turn.answer.content for turn in turns)
    assert sum(asked) == usable + unusable >= 1
    if usable == 0:  # the bundled 135M model, as measured: asked until it has failed GIVE_UP_AFTER times
        assert asked == [1] * GIVE_UP_AFTER + [0] and unusable == GIVE_UP_AFTER
        assert all(turn.answer.facts.table is None and turn.answer.facts.citations for turn in turns)
    for turn in turns:
        figure = turn.answer.facts.table
        if figure is not None:  # given to the model first, as computed by the query it wrote
            assert figure.written_by == model and figure.value is not None
            assert turn.answer.facts.citations[0].text == figure.statement
