"""A new user uploads a PDF report with a table, a workbook of sales by date and a CSV of invoices
with amounts as people write them, on the Documents page, then asks a figure of each in a new
conversation (issue 55): docchat states each one, computed over the right table's rows and cited
by its page or sheet. No LLM server runs behind the page."""

import datetime
from io import BytesIO

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, ask_and_settle, go_to, open_app, upload
from tests.office_files import delimited
from tests.pdf_files import Table, pdf_of

DOCS = ARTIFACTS.parent.parent.parent / "docs"
STOCK = [["Depot", "Region", "Pallets", "Cost"],
         ["Oslo", "East", "1,840", "$12,400"],
         ["Bergen", "West", "2,152", "$15,100"],
         ["Stavanger", "West", "410", "$3,050"],
         ["Total", "", "4,402", "$30,550"]]


def _report() -> bytes:
    # A rule under the header and between rows only, as reports print a table.
    return pdf_of("Quarterly depot report",
                  "Pallets held at the end of the quarter, and what holding them cost, by depot.",
                  Table(STOCK, borders="HORIZONTAL_LINES"), "Counts were taken on the last day of the quarter.")


def _sales() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Sales"
    sheet.append(("Date", "Region", "Units sold"))
    for day, region, units in (((2024, 11, 29), "North", 310), ((2024, 12, 20), "South", 275),
                               ((2025, 1, 31), "North", 120), ((2025, 2, 28), "North", 95),
                               ((2025, 3, 14), "South", 60)):
        sheet.append((datetime.date(*day), region, units))
    kept = BytesIO()
    book.save(kept)
    return kept.getvalue()


def _invoices() -> bytes:
    return delimited([["Invoice", "Client", "Amount", "Discount"],
                      ["INV-101", "Harbour Supply", "$1,200.00", "5%"],
                      ["INV-102", "Nordic Rope", "$3,400.50", "—"],
                      ["INV-103", "Harbour Supply", "$2,050.00", "10%"],
                      ["INV-104", "Kessler Marine", "(250.00)", "—"]])


def test_a_figure_is_stated_from_a_pdf_table_a_dated_sheet_and_a_csv_of_written_amounts(app_url, page, tmp_path):
    files = {"depot-report.pdf": _report(), "sales-by-month.xlsx": _sales(), "invoices.csv": _invoices()}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    open_app(page, app_url)
    go_to(page, "Documents")
    upload(page, *(tmp_path / name for name in files))
    for name in files:
        expect(page.get_by_text(f"{name}: ").filter(has_text="ready")).to_be_visible(timeout=180_000)

    go_to(page, "Chat")
    page.get_by_role("button", name="New conversation").click()
    ask_and_settle(page, "What is the total cost of the West region depots?")

    answer = page.get_by_test_id("stChatMessage").last
    # Bergen's $15,100 and Stavanger's $3,050; the PDF's Total row left out.
    expect(answer.get_by_text("The total of Cost where Region is West is").first).to_be_visible(timeout=30_000)
    expect(answer.locator("strong", has_text="18,150")).to_be_visible()
    expect(answer.get_by_text("depot-report.pdf › Page 1 table").first).to_be_visible()
    page.screenshot(path=str(DOCS / "pdf-table-figure.png"), full_page=True)

    ask_and_settle(page, "How many units were sold in 2025?")

    answer = page.get_by_test_id("stChatMessage").last
    expect(answer.locator("strong", has_text="275")).to_be_visible(timeout=30_000)  # 120 + 95 + 60, not 860
    expect(answer.get_by_text("sales-by-month.xlsx › Sales").first).to_be_visible()
    page.screenshot(path=str(DOCS / "dated-figure.png"), full_page=True)

    ask_and_settle(page, "What is the total amount invoiced to Harbour Supply?")

    answer = page.get_by_test_id("stChatMessage").last
    expect(answer.locator("strong", has_text="3,250")).to_be_visible(timeout=30_000)  # $1,200.00 + $2,050.00
    expect(answer.get_by_text("invoices.csv").first).to_be_visible()
    page.screenshot(path=str(DOCS / "written-amounts-figure.png"), full_page=True)

    # A reading docchat is unsure of is said so, with the reading to check, not given as a figure.
    ask_and_settle(page, "Which depot holds the second most pallets?")

    answer = page.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("docchat is not sure it read your question right: it did not read “second”")
           .first).to_be_visible(timeout=30_000)
    expect(answer.get_by_text("Its reading, to check: The Depot with the highest total of Pallets is").first) \
        .to_be_visible()
    page.screenshot(path=str(DOCS / "unsure-reading.png"), full_page=True)


def test_questions_in_people_s_words_get_the_figure_of_the_column_they_mean(app_url, page, tmp_path):
    # A salary list whose columns are named as a university's data names them, and a county count.
    salaries = delimited([["rank", "discipline", "sex", "salary"], ["Prof", "B", "Male", "139,750"],
                          ["AsstProf", "B", "Male", "79,750"], ["Prof", "A", "Female", "150,480"],
                          ["AsstProf", "A", "Female", "77,000"], ["Prof", "A", "Male", "173,200"]])
    votes = delimited([["County", "GORE", "BUSH"], ["ALACHUA", "47,300", "34,062"], ["BAKER", "2,392", "5,610"],
                       ["DADE", "328,702", "289,456"], ["DUVAL", "107,680", "152,082"]])
    for name, data in (("faculty-salaries.csv", salaries), ("county-votes.csv", votes)):
        (tmp_path / name).write_bytes(data)
    open_app(page, app_url)
    go_to(page, "Documents")
    upload(page, tmp_path / "faculty-salaries.csv", tmp_path / "county-votes.csv")
    for name in ("faculty-salaries.csv", "county-votes.csv"):
        expect(page.get_by_text(f"{name}: ").filter(has_text="ready")).to_be_visible(timeout=180_000)

    go_to(page, "Chat")
    page.get_by_role("button", name="New conversation").click()
    ask_and_settle(page, "How many assistant professors earn more than $75,000 at faculty-salaries.csv?")
    answer = page.get_by_test_id("stChatMessage").last
    # "assistant professors" is the table's AsstProf, and "earn" its salary (the bundled encoder).
    expect(answer.get_by_text("where rank is AsstProf and salary is more than 75000").first).to_be_visible(
        timeout=30_000)
    expect(answer.locator("strong").get_by_text("2", exact=True)).to_be_visible()

    ask_and_settle(page, "In how many counties of county-votes.csv did Gore get more votes than Bush?")
    answer = page.get_by_test_id("stChatMessage").last
    expect(answer.get_by_text("where GORE is more than BUSH").first).to_be_visible(timeout=30_000)
    expect(answer.locator("strong").get_by_text("2", exact=True)).to_be_visible()  # Alachua and Dade
    page.screenshot(path=str(DOCS / "table-words.png"), full_page=True)
