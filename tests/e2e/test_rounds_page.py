"""The collection read in rounds, in Chromium over the real model server: a question about every
document, whose passages do not fit one prompt of a small window, is read a round at a time, and
the answer says it covered every document, in how many rounds."""

import re

from playwright.sync_api import expect

from docchat_bench.questions import SUPPLIERS, contract
from tests.e2e.conftest import ARTIFACTS, ask, open_app, settled

CONTRACTS = SUPPLIERS[:6]


def test_a_question_about_every_document_too_many_for_one_prompt_is_read_in_rounds(
        seeded, live_app_url_small_window, page):
    for n, (name, *rest) in enumerate(CONTRACTS):
        seeded.ingestion.ingest(f"supplier-contract-{name}.md", contract(name, *rest, reviews=n % 3 == 0).encode())
    seeded.index.open().close()  # one process at a time: the page opens the index itself
    open_app(page, live_app_url_small_window)

    ask(page, "List the renewal date of every supplier contract.")

    covered = page.get_by_text(re.compile(r"^Read every document in scope in \d+ rounds: covered 6 of 6 documents\.$"))
    expect(covered).to_be_visible(timeout=240_000)
    settled(page)
    page.screenshot(path=str(ARTIFACTS / "collection_in_rounds.png"), full_page=True)
