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

    # Which value ranks first: Oslo's pallets in all (9,492), not the largest single row.
    ask_and_settle(page, "Which location has the most pallets?")

    answer = page.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("The Location with the highest total of Pallets is").first).to_be_visible(timeout=30_000)
    expect(answer.locator("strong", has_text="Oslo")).to_be_visible()
    expect(answer.locator("strong", has_text="9,492")).to_be_visible()
    page.screenshot(path=str(DOCS / "ranked-figure.png"), full_page=True)


CONTRACT = "# Supplier contract: {name}\n\nThe {name} supplier contract renews on 1 {month} 2027.\n"
LEASE = "# Lease of 4 Quay Street, {year}\n\n## Rent\n\nThe tenant pays a rent of GBP {rent} every month.\n"


def test_the_collection_is_a_row_per_document_and_a_comparison_a_table_of_what_each_says(seeded, app_url, page):
    for name, month in (("Acme", "March"), ("Borealis", "April"), ("Cobalt", "June")):
        seeded.ingestion.ingest(f"supplier-contract-{name.lower()}.md", CONTRACT.format(name=name, month=month).encode())
    for year, rent in ((2024, "1,200"), (2025, "1,300")):
        seeded.ingestion.ingest(f"lease-{year}.md", LEASE.format(year=year, rent=rent).encode())
    seeded.conversations.create("Contracts and leases")
    seeded.index.open().close()  # one process at a time: the page opens the index itself
    open_app(page, app_url)
    run_by_click(page, page.get_by_test_id("stSidebar").get_by_role("button", name="Contracts and leases"))

    ask_and_settle(page, "List the renewal date of every supplier contract.")

    answer = page.get_by_test_id("stChatMessage").last
    table = answer.locator("table")
    expect(table.locator("th", has_text="Date")).to_be_visible(timeout=30_000)
    for name, month in (("acme", "March"), ("borealis", "April"), ("cobalt", "June")):
        row = table.locator("tr", has_text=f"supplier-contract-{name}.md")
        expect(row.locator("td").nth(1)).to_have_text(f"1 {month} 2027")
        expect(row).to_contain_text(f"renews on 1 {month} 2027")
    expect(answer.get_by_text("Quoted from your documents.")).to_be_visible()
    page.screenshot(path=str(DOCS / "collection-answer.png"), full_page=True)

    ask_and_settle(page, "Compare the rent in lease-2024.md and lease-2025.md.")

    table = page.get_by_test_id("stChatMessage").last.locator("table")
    expect(table.locator("tr", has_text="lease-2024.md")).to_contain_text("GBP 1,200", timeout=30_000)
    expect(table.locator("tr", has_text="lease-2025.md")).to_contain_text("GBP 1,300")
    settled(page)
    page.screenshot(path=str(DOCS / "comparison-answer.png"), full_page=True)
