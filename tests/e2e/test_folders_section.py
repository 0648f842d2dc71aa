"""A user follows a folder from the Documents page's Folders section, sees each file's status
(a damaged PDF refused, with why), adds a note to the folder and syncs; with no LLM server."""

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, go_to, open_app, settled

DAMAGED = '"minutes.pdf" is not a readable PDF (it may be damaged)'


def test_a_followed_folder_shows_its_files_status_and_syncs_now(app_url, page, tmp_path):
    notes = tmp_path / "Notes"
    (notes / ".obsidian").mkdir(parents=True)
    (notes / "bread.md").write_text("# Bread\n\nKnead the dough for ten minutes, see [[Rye]].\n")
    (notes / "minutes.pdf").write_bytes(b"%PDF-1.7 cut short")
    (notes / ".obsidian" / "workspace.md").write_text("# Workspace\n")
    open_app(page, app_url)
    go_to(page, "Documents")
    expect(page.get_by_text("Folders (0)")).to_be_visible()
    settled(page)

    page.get_by_label("Folder to follow").fill(str(notes))
    page.get_by_label("Folder to follow").press("Enter")
    settled(page)
    page.get_by_role("button", name="Follow", exact=True).click()

    expect(page.get_by_text(f"Following {notes}: 1 added, 0 changed, 0 removed, 0 unchanged, 1 refused."))\
        .to_be_visible(timeout=120_000)
    expect(page.get_by_text("Folders (1)")).to_be_visible()
    expect(page.get_by_label("Folder to follow")).to_have_value("")
    expect(page.get_by_text("1 ready, 1 refused · last sync ")).to_be_visible()
    expect(page.get_by_text("Library (1)")).to_be_visible()
    settled(page)
    page.get_by_text("1 file not in the library").click()
    expect(page.get_by_text(DAMAGED)).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "folders_followed.png"), full_page=True)

    page.get_by_label("Folder to follow").fill(str(notes / "bread.md"))
    page.get_by_label("Folder to follow").press("Enter")
    # The run Enter starts drops the note above the section, so its elements move up, and until
    # it is over the last run's Follow button stays on screen beside the new one: a click then
    # meets two. The note gone says that run has begun; `settled` then waits for its end.
    expect(page.get_by_text(f"Following {notes}:")).to_have_count(0)
    settled(page)
    page.get_by_role("button", name="Follow", exact=True).click()
    expect(page.get_by_text(f"{notes / 'bread.md'} is not a folder")).to_be_visible()
    expect(page.get_by_text("Folders (1)")).to_be_visible()

    (notes / "rye.md").write_text("# Rye\n\nRye bread needs no kneading.\n")
    settled(page)
    page.get_by_role("button", name="Sync now").click()

    # Added by this pass, or already by the app's watcher: either way the library holds it.
    expect(page.get_by_text("Synced:")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Library (2)")).to_be_visible()
    expect(page.get_by_text("2 ready, 1 refused · last sync ")).to_be_visible()
    settled(page)
    page.screenshot(path=str(ARTIFACTS / "folders_synced.png"), full_page=True)
