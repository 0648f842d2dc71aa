"""Answering another way, in Chromium: a question answered by a lookup is asked again as a
comparison from the answer's menu, and the page says what the new answer compared and covered.
The conversation answers from its documents only, so no LLM server is needed: the reply is
docchat's own, made from the comparison's passages."""

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, ask_and_settle, open_app, open_popover, run_by_click, settled

LEASE = "# Lease of 4 Quay Street, {year}\n\n## Rent\n\nThe tenant pays GBP {rent} on the first day of each month.\n"
QUESTION = "Who won the football World Cup in 1998?"


def test_an_answer_asked_again_as_a_comparison_says_what_it_compared(seeded, app_url, page):
    for year, rent in ((2024, "1,200"), (2025, "1,300")):
        seeded.ingestion.ingest(f"lease-{year}.md", LEASE.format(year=year, rent=rent).encode())
    conversation = seeded.conversations.create("Leases")
    seeded.messages.append_message(conversation.id, "user", QUESTION)
    seeded.messages.append_message(conversation.id, "assistant", "France won it, at home.")
    seeded.conversations.set_documents_only(conversation.id, True)
    seeded.index.open().close()  # one process at a time: the page opens the index itself
    open_app(page, app_url)
    page.get_by_test_id("stSidebar").get_by_role("button", name="Leases").click()
    expect(page.get_by_text("France won it, at home.")).to_be_visible(timeout=30_000)
    settled(page)

    menu = open_popover(page, page.get_by_role("button", name="Answer another way"))
    run_by_click(page, menu.get_by_role("button", name="Compare the documents side by side"))

    expect(page.get_by_text("I could not find this in your documents.")).to_be_visible(timeout=60_000)
    settled(page)
    expect(page.get_by_text("Compared lease-2024.md and lease-2025.md: covered 2 of 2 documents.")).to_be_visible()
    # Asked again as a new version of the question; the first answer is kept with the first version.
    expect(page.get_by_text("2 / 2")).to_be_visible()
    expect(page.get_by_text("France won it, at home.")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "answer_another_way.png"), full_page=True)


def test_a_computed_figure_says_where_it_came_from_and_shows_its_query_on_request(seeded, app_url, page):
    from docchat.domain.approach import Approach, Figure, Way

    figure = Figure("d-stock", "harbour-inventory.xlsx", "Stock", "the total of Pallets where Location is Oslo", 245,
                    "SELECT SUM(\"Pallets\") AS value FROM sheet_1 WHERE _kind = 'row' AND \"Location\" = 'Oslo'",
                    (2, 3, 4))
    # A figure docchat wrote no query for, computed by the query the served model wrote.
    written = Figure("d-stock", "harbour-inventory.xlsx", "Stock", "stock value", 1080,
                     "SELECT SUM(\"Pallets\" * \"Unit price\") AS stock_value FROM stock", (),
                     written_by="Qwen3-4B-Instruct-2507")
    conversation = seeded.conversations.create("Stock")
    for question, reply, computed in (("How many pallets are stored in Oslo in total?", "There are 245 pallets in Oslo.",
                                       figure),
                                      ("What is the stock worth?", "The stock is worth 1080.", written)):
        seeded.messages.append_message(conversation.id, "user", question)
        answer = seeded.messages.append_message(conversation.id, "assistant", reply)
        with seeded.conversations._uow(write=True) as uow:
            uow.conversations.settle_message(answer.with_facts(
                approach=Approach(Way.TABLE, ("d-stock",), ("harbour-inventory.xlsx › Stock",)), table=computed))
            uow.commit()
    open_app(page, app_url)
    page.get_by_test_id("stSidebar").get_by_role("button", name="Stock").click()

    expect(page.get_by_text("Computed from harbour-inventory.xlsx › Stock, rows 2-4: the total of Pallets where "
                            "Location is Oslo is 245.")).to_be_visible(timeout=30_000)
    settled(page)
    page.get_by_text("The query docchat ran").click()
    expect(page.get_by_text("WHERE _kind = 'row' AND \"Location\" = 'Oslo'")).to_be_visible()
    expect(page.get_by_text("Computed from harbour-inventory.xlsx › Stock by a query Qwen3-4B-Instruct-2507 wrote: "
                            "stock value is 1080.")).to_be_visible()
    page.get_by_text("The query Qwen3-4B-Instruct-2507 wrote").click()
    expect(page.get_by_text("AS stock_value FROM stock")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "computed_figure.png"), full_page=True)


CONTRACT = "# Supplier contract: {name}\n\nThe {name} supplier contract covers {goods}, delivered to the Oslo warehouse.\n"


def test_a_summary_of_every_contract_is_quoted_from_each_of_them(seeded, app_url, page):
    goods = {"Acme": "steel", "Borealis": "timber", "Cobalt": "paint", "Dunmore": "rope"}
    for name, what in goods.items():
        seeded.ingestion.ingest(f"supplier-contract-{name.lower()}.md", CONTRACT.format(name=name, goods=what).encode())
    conversation = seeded.conversations.create("Contracts")
    seeded.conversations.set_quoted_answers(conversation.id, True)
    seeded.index.open().close()  # one process at a time: the page opens the index itself
    open_app(page, app_url)
    run_by_click(page, page.get_by_test_id("stSidebar").get_by_role("button", name="Contracts"))

    ask_and_settle(page, "Summarise all the supplier contracts.")

    expect(page.get_by_text("Read every document in scope: covered 4 of 4 documents.")).to_be_visible()
    expect(page.get_by_text("Quoted from your documents.")).to_be_visible()
    for name, what in goods.items():
        expect(page.get_by_role("listitem").filter(has_text=f"The {name} supplier contract covers {what}")).to_be_visible()
    expect(page.get_by_text("I could not find this in your documents.")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "collection_summary_quoted.png"), full_page=True)
