"""A figure docchat computed from a sheet, on the page (issue 54): the answer itself states it,
in docchat's words, with its rows cited and the query one click away; a figure per value is a
table. No LLM server runs behind the page: docchat states the figure itself."""

from io import BytesIO

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, ask_and_settle, open_app, run_by_click, settled

DOCS = ARTIFACTS.parent.parent.parent / "docs"


def _stock_workbook() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Stock"
    for row in (("Location", "Item", "Pallets"), ("Oslo", "Cardboard boxes", 4120), ("Oslo", "Stretch film", 5372),
                ("Bergen", "Cardboard boxes", 880), ("Bergen", "Pallet wrap", 1311), ("Total", None, 11683)):
        sheet.append(row)
    kept = BytesIO()
    book.save(kept)
    return kept.getvalue()


def test_a_figure_and_a_figure_per_value_are_stated_in_the_answer_with_their_rows_and_query(seeded, app_url, page):
    seeded.ingestion.ingest("warehouse-stock.xlsx", _stock_workbook())
    seeded.conversations.create("Stock")
    seeded.index.open().close()  # one process at a time: the page opens the index itself
    open_app(page, app_url)
    run_by_click(page, page.get_by_test_id("stSidebar").get_by_role("button", name="Stock"))

    ask_and_settle(page, "How many pallets are in Oslo in total?")

    answer = page.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("The total of Pallets where Location is Oslo is 9,492")).to_be_visible(timeout=30_000)
    expect(answer.locator("strong", has_text="9,492")).to_be_visible()
    expect(answer.get_by_text("Computed by docchat from your documents; no model wrote it.")).to_be_visible()
    expect(page.get_by_text("Computed from warehouse-stock.xlsx")).to_have_count(0)  # not again as a caption
    answer.get_by_text("The query docchat ran").click()  # an expander opens in the browser: no run
    expect(answer.get_by_text("WHERE _kind = 'row'")).to_be_visible()
    page.screenshot(path=str(DOCS / "stated-figure.png"), full_page=True)

    ask_and_settle(page, "What is the total of pallets per location?")

    table = page.get_by_test_id("stChatMessage").last.locator("table")
    expect(table).to_be_visible(timeout=30_000)
    expect(table.locator("tr", has_text="Oslo")).to_contain_text("9,492")
    expect(table.locator("tr", has_text="Bergen")).to_contain_text("2,191")
    expect(table.locator("tr", has_text="Total")).to_have_count(1)  # the header's, not the sheet's Total row
    settled(page)
    page.screenshot(path=str(DOCS / "stated-figure-per-value.png"), full_page=True)
