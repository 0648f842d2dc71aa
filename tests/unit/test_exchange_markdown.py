"""The Markdown export: what a reader of the file sees of each message, its sources and versions."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

from markdown_it import MarkdownIt

from docchat.domain import Citation, Conversation, Message, Role
from docchat.domain.approach import Approach, Coverage, Figure, Way
from docchat.exchange import to_markdown

from tests.unit.exchange_data import conversation, message, messages


def test_markdown_starts_with_the_title_and_gives_the_dates():
    markdown = to_markdown(conversation(), messages())

    assert markdown.splitlines()[0] == "# Harbour Street Trust: Determination Date"
    assert "- Created: 2025-03-14 09:30:00 UTC" in markdown
    assert "- Updated: 2025-03-14 09:37:00 UTC" in markdown


def test_markdown_has_a_role_heading_with_timestamp_for_each_message():
    lines = to_markdown(conversation(), messages()).splitlines()

    headings = [line for line in lines if line.startswith("## ")]
    assert headings == [
        "## System · 2025-03-14 09:31:00 UTC",
        "## User · 2025-03-14 09:32:00 UTC",
        "## Assistant · 2025-03-14 09:33:00 UTC · rated 👍",
        "## User · 2025-03-14 09:34:00 UTC",
        "## Assistant · 2025-03-14 09:35:00 UTC (interrupted)",
    ]


def test_markdown_puts_each_message_text_under_its_heading():
    lines = to_markdown(conversation(), messages()).splitlines()

    at = lines.index("## User · 2025-03-14 09:32:00 UTC")
    assert lines[at + 2] == "When is the Determination Date under the trust agreement?"


def test_markdown_shows_times_in_utc_whatever_zone_they_were_recorded_in():
    new_york = timezone(timedelta(hours=-4))
    late = [message(1, Role.USER, "Is the Determination Date in New York time?")]
    late = [Message(**{**late[0].__dict__, "created_at": datetime(2025, 3, 14, 22, 15, tzinfo=new_york)})]

    markdown = to_markdown(conversation(), late)

    assert "## User · 2025-03-15 02:15:00 UTC" in markdown


def test_markdown_lists_a_passage_the_answer_did_not_cite_as_only_given_to_the_model():
    lines = to_markdown(conversation(), messages()).splitlines()

    at = lines.index("## Assistant · 2025-03-14 09:33:00 UTC · rated 👍")
    assert "**Sources**" not in lines[at:at + 8]
    assert lines[at + 4:at + 7] == ["**Also given to the model** (1)", "",
                                    "- [1] trust-agreement.pdf, page 12: “Determination Date”"]


def test_markdown_lists_the_sources_an_answer_cited_under_it_in_order_of_mention():
    given = [Citation.from_dict({"document": name, "where": where, "text": text}, number=n) for n, (name, where, text)
             in enumerate([("lease.pdf", "page 2", "Rent is GBP 62,000."), ("lease.pdf", "page 5", "Breaks."),
                           ("harbour-trust.md", "Fees", "The Trustee is paid GBP 40,000.")], start=1)]
    answer = message(3, Role.ASSISTANT, "The Trustee is paid GBP 40,000 [3]; the rent is GBP 62,000 [1].",
                     citations=given)

    lines = to_markdown(conversation(), [answer]).splitlines()

    at = lines.index("**Sources**")
    assert lines[at + 2:at + 4] == ["- [3] harbour-trust.md, Fees: “The Trustee is paid GBP 40,000.”",
                                    "- [1] lease.pdf, page 2: “Rent is GBP 62,000.”"]
    assert lines[at + 5:at + 8] == ["**Also given to the model** (1)", "", "- [2] lease.pdf, page 5: “Breaks.”"]


def test_a_long_cited_passage_is_cut_to_one_line_in_markdown():
    cited = {"number": 2, "document": "lease.pdf", "where": "Rent review", "text": "The rent\nis reviewed. " * 40}
    answer = message(3, Role.ASSISTANT, "Every fifth year [2].", citations=[Citation.from_dict(cited, number=1)])

    [line] = [line for line in to_markdown(conversation(), [answer]).splitlines() if line.startswith("- [2] ")]

    assert line.startswith("- [2] lease.pdf, Rent review: “The rent is reviewed. The rent")
    assert line.endswith("…”") and len(line) < 260


def test_sources_keep_the_numbers_the_answer_cites_them_by_once_the_markdown_is_rendered():
    cited = [Citation.from_dict({"number": n, "document": name, "where": "page 3", "text": "Rent is due."}, number=n)
             for n, name in ((2, "lease.pdf"), (1, "schedule.pdf"), (17, "deed.pdf"))]
    answer = message(3, Role.ASSISTANT, "Rent is due quarterly [2], per the schedule [1] and the deed [17].",
                     citations=cited)

    rendered = MarkdownIt("commonmark").render(to_markdown(conversation(), [answer]))

    assert "<ol" not in rendered  # an ordered list would read 2, 3, 4
    assert "[2] lease.pdf" in rendered and "[1] schedule.pdf" in rendered and "[17] deed.pdf" in rendered


def test_the_branch_shown_comes_first_in_order_and_the_earlier_versions_after_it():
    replaced = [message(1, Role.USER, "What is the deposit?", shown=False),
                message(2, Role.ASSISTANT, "I do not know.", shown=False)]
    current = [message(3, Role.USER, "What is the deposit under the lease?", version_of=replaced[0].id),
               message(4, Role.ASSISTANT, "Six weeks' rent.")]

    lines = to_markdown(conversation(), replaced + current).splitlines()

    headings = [line for line in lines if line.startswith("#")]
    assert headings[1:] == ["## User · 2025-03-14 09:33:00 UTC", "## Assistant · 2025-03-14 09:34:00 UTC",
                            "## Earlier versions",
                            "### User · 2025-03-14 09:31:00 UTC", "### Assistant · 2025-03-14 09:32:00 UTC"]
    assert "- Messages: 2 (and 2 earlier versions)" in lines


def test_the_conversations_instructions_are_in_the_markdown():
    instructed = conversation()
    instructed = Conversation(**{**instructed.__dict__, "settings": replace(
        instructed.settings, instructions="Answer in British English.\n\nQuote the clause number.")})

    markdown = to_markdown(instructed, messages())

    assert "**Instructions** (sent to the model after docchat's own):\n\n> Answer in British English.\n>\n" \
           "> Quote the clause number.\n" in markdown
    assert markdown.index("Quote the clause number.") < markdown.index("## System")


def test_markdown_says_below_an_answer_what_its_comparison_covered():
    compared = Approach(Way.COMPARE, ("doc-2024", "doc-2025"), ("lease-2024.md", "lease-2025.md"))
    answer = message(3, Role.ASSISTANT, "The rent rose by 4%.", approach=compared, coverage=Coverage(2, 2))

    lines = to_markdown(conversation(), [*messages()[:2], answer]).splitlines()

    assert lines[lines.index("The rent rose by 4%.") + 2] == \
        "Compared lease-2024.md and lease-2025.md: covered 2 of 2 documents."


def test_markdown_gives_a_computed_figure_and_the_query_that_computed_it():
    sql = "SELECT SUM(\"Pallets\") FROM sheet_1 WHERE \"Item\" = 'box ```'"
    figure = Figure("d-9", "stock.xlsx", "Stock", "the total of Pallets where Item is box ```", 7, sql, (4,))
    answer = message(3, Role.ASSISTANT, "Seven pallets [1].", approach=Approach(Way.TABLE), table=figure)

    markdown = to_markdown(conversation(), [*messages()[:2], answer])

    assert "Computed from stock.xlsx › Stock, row 4: the total of Pallets where Item is box ``` is 7." in markdown
    [block] = [token for token in MarkdownIt().parse(markdown) if token.type == "fence"]
    assert (block.info, block.content) == ("sql", sql + "\n")
