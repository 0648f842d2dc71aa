"""A user uploads a Markdown file in the Documents page, uploads it again (it is already in the
library), and deletes it after a confirmation; uploads several files at once, one of them empty;
with no LLM server behind the page."""

from playwright.sync_api import expect

from docchat.documents.registry import READABLE

from tests.e2e.conftest import ARTIFACTS, go_to, open_app, run_by_click, settled, upload

NAME = "kitchen-notebook.md"
NOTES = """# Bread

Knead the dough for ten minutes, then let it rise for an hour in a warm kitchen.
Bake at 220 °C for thirty-five minutes, until the loaf sounds hollow when tapped.
"""
DELETE_QUESTION = (f"Delete “{NAME}”? It is removed from the library and from every conversation's search; "
                   "answers that cited it keep their quotes.")


def _open_documents(page, app_url) -> None:
    open_app(page, app_url)
    go_to(page, "Documents")


def test_a_file_uploaded_twice_is_ingested_once_and_the_second_time_says_so(app_url, page, tmp_path):
    notes = tmp_path / NAME
    notes.write_text(NOTES)
    _open_documents(page, app_url)
    expect(page.get_by_text("No documents yet.")).to_be_visible()

    upload(page, notes)
    # While it ingests (the embedding model loads first), its progress bar and stage are in view.
    progress = page.get_by_test_id("stProgress")
    expect(progress).to_be_visible()
    expect(progress).to_contain_text(f"{NAME}:")
    page.screenshot(path=str(ARTIFACTS / "documents_ingesting.png"), full_page=True)
    expect(page.get_by_text(f"{NAME}: 1 chunk ready")).to_be_visible(timeout=120_000)
    expect(page.get_by_text("Library (1)")).to_be_visible()
    expect(page.get_by_text("MARKDOWN · ").filter(has_text="bytes · 1 chunk · added")).to_be_visible()

    # The same file again: taken out of the uploader, chosen again, ingested again.
    # Taking a file out reruns the page; a file chosen before that run begins is lost with it.
    run_by_click(page, page.get_by_role("button", name=f"Remove {NAME}"))
    expect(page.get_by_role("button", name=f"Remove {NAME}")).to_have_count(0)
    upload(page, notes)

    expect(page.get_by_text(f"{NAME} is already in the library")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("chunk ready")).to_have_count(0)
    expect(page.get_by_text("Library (1)")).to_be_visible()
    expect(page.get_by_text("MARKDOWN · ").filter(has_text="bytes · 1 chunk · added")).to_be_visible()
    settled(page)
    page.screenshot(path=str(ARTIFACTS / "documents_already_in_library.png"), full_page=True)


def test_deleting_a_document_asks_first_and_cancel_keeps_it(app_url, page, tmp_path):
    notes = tmp_path / NAME
    notes.write_text(NOTES)
    _open_documents(page, app_url)
    upload(page, notes)
    expect(page.get_by_text(f"{NAME}: 1 chunk ready")).to_be_visible(timeout=120_000)
    library = page.get_by_test_id("stMain")

    library.get_by_role("button", name="Delete").click()
    expect(page.get_by_text(DELETE_QUESTION)).to_be_visible()
    settled(page)
    page.screenshot(path=str(ARTIFACTS / "documents_delete_confirmation.png"), full_page=True)
    page.get_by_role("button", name="Cancel").click()

    expect(page.get_by_text(DELETE_QUESTION)).to_have_count(0)
    expect(page.get_by_text("Library (1)")).to_be_visible()

    settled(page)  # a click during a run can be lost when the button is drawn anew
    library.get_by_role("button", name="Delete").click()
    expect(page.get_by_role("button", name="Yes, delete")).to_be_visible()
    settled(page)
    page.get_by_role("button", name="Yes, delete").click()

    expect(page.get_by_text(f"Deleted “{NAME}”.")).to_be_visible()
    expect(page.get_by_text("Library (0)")).to_be_visible()
    expect(page.get_by_text("No documents yet.")).to_be_visible()
    settled(page)
    page.screenshot(path=str(ARTIFACTS / "documents_deleted.png"), full_page=True)


def test_several_files_go_in_together_and_a_bad_one_is_named_without_stopping_the_others(app_url, page, tmp_path):
    notes = {"bread.md": NOTES, "lease.txt": "The rent is reviewed every fifth year against open market rents.\n",
             "custard.md": "# Custard\n\nWarm the milk with a vanilla pod and whisk it into the yolks.\n",
             "empty.md": "   \n"}
    paths = []
    for name, text in notes.items():
        (tmp_path / name).write_text(text)
        paths.append(tmp_path / name)
    _open_documents(page, app_url)

    upload(page, *paths)
    expect(page.get_by_text("bread.md: 1 chunk ready")).to_be_visible(timeout=120_000)
    expect(page.get_by_text("lease.txt: 1 chunk ready")).to_be_visible()
    expect(page.get_by_text("custard.md: 1 chunk ready")).to_be_visible()
    expect(page.get_by_text('"empty.md" has no text to index', exact=True)).to_be_visible()
    expect(page.get_by_text("Library (3)")).to_be_visible()
    expect(page.get_by_test_id("stProgress")).to_have_count(0)  # the batch's bar is gone once it is done
    settled(page)
    page.screenshot(path=str(ARTIFACTS / "documents_batch.png"), full_page=True)


def test_a_file_of_a_kind_docchat_does_not_read_is_named_in_the_results_with_the_kinds_it_reads(app_url, page,
                                                                                                tmp_path):
    (tmp_path / "review.key").write_bytes(b"PK\x03\x04 Keynote slides of the quarterly review")
    (tmp_path / "bread.md").write_text(NOTES)
    _open_documents(page, app_url)
    expect(page.get_by_text(f"docchat reads {READABLE}")).to_be_visible()

    upload(page, tmp_path / "review.key", tmp_path / "bread.md")

    expect(page.get_by_text("bread.md: 1 chunk ready")).to_be_visible(timeout=120_000)
    refused = page.get_by_test_id("stAlert").filter(has_text="review.key")
    expect(refused).to_contain_text(f"is not a supported type; docchat reads {READABLE}")
    expect(page.get_by_text("Library (1)")).to_be_visible()
    settled(page)
    page.screenshot(path=str(ARTIFACTS / "documents_unsupported.png"), full_page=True)
