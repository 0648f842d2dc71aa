"""A user opens the trash on the Settings page, restores a deleted conversation (it is back in the
chat sidebar), deletes another forever after a confirmation, and empties the trash, with no LLM
server behind the page. The conversations are written beforehand through the services, over the
data dir the page serves."""

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, go_to, open_app, settled
from tests.integration.sample_data import TRUST_TURNS, trust_conversation

TRUST = "Hartley family trust agreement"
LEASE = "Lease renewal for the Leeds office"
REPORT = "Q3 2025 quarterly report"
# The page scrolls inside its main pane, which a full-page screenshot does not follow: a window
# tall enough for the trash under the health figures.
TALL = {"width": 1280, "height": 1500}


def _conversation(services, title: str, *questions: str) -> str:
    conversation = services.conversations.create(title)
    for question in questions:
        services.messages.append_message(conversation.id, "user", question)
    return conversation.id


def _open_settings(page, app_url) -> None:
    page.set_viewport_size(TALL)
    open_app(page, app_url)
    go_to(page, "Settings")
    _drawn(page)


def _drawn(page) -> None:
    """The whole Settings page is drawn: down to its last figure, none of it left from a last run."""
    expect(page.get_by_text("Vectors", exact=True)).to_be_visible(timeout=30_000)
    settled(page)


def _in_trash(page, title: str):
    """The trash's row for `title`: its bordered box, with its buttons."""
    return page.get_by_test_id("stVerticalBlock").filter(
        has=page.get_by_text(title, exact=True)).filter(has=page.get_by_role("button", name="Restore")).last


def test_a_restored_conversation_is_back_in_the_sidebar_and_one_deleted_forever_is_gone(app_url, page, seeded):
    trust_id = trust_conversation(seeded)
    lease_id = _conversation(seeded, LEASE, "When can we break the lease?", "Who pays for repairs?")
    _conversation(seeded, REPORT, "What was recurring revenue in Q3?")
    seeded.conversations.delete(lease_id)
    seeded.conversations.delete(trust_id)

    page.set_viewport_size(TALL)
    open_app(page, app_url)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_role("button", name=REPORT)).to_be_visible()
    expect(sidebar.get_by_role("button", name=TRUST)).to_have_count(0)
    go_to(page, "Settings")
    # The page is drawn in full before it is read: on a busy machine its run takes seconds.
    _drawn(page)

    expect(page.get_by_text("Trash (2)")).to_be_visible()
    trust = _in_trash(page, TRUST)
    expect(trust).to_contain_text(f"Deleted just now · {len(TRUST_TURNS)} messages")
    expect(_in_trash(page, LEASE)).to_contain_text("2 messages")
    page.screenshot(path=str(ARTIFACTS / "trash_listed.png"), full_page=True)

    trust.get_by_role("button", name="Restore").click()

    expect(page.get_by_text(f"Restored “{TRUST}”: it is back in the chat's conversation list.")).to_be_visible()
    expect(page.get_by_text("Trash (1)")).to_be_visible()
    _drawn(page)
    page.screenshot(path=str(ARTIFACTS / "trash_restored.png"), full_page=True)

    _in_trash(page, LEASE).get_by_role("button", name="Delete forever").click()
    question = page.get_by_text(f"Delete “{LEASE}” forever, with its 2 messages? This cannot be undone.")
    expect(question).to_be_visible()
    _drawn(page)
    page.screenshot(path=str(ARTIFACTS / "trash_delete_forever.png"), full_page=True)
    page.get_by_role("button", name="Cancel").click()
    expect(question).to_have_count(0)
    expect(page.get_by_text("Trash (1)")).to_be_visible()

    settled(page)  # a click during a run can be lost when the button is drawn anew
    _in_trash(page, LEASE).get_by_role("button", name="Delete forever").click()
    expect(page.get_by_role("button", name="Yes, delete forever")).to_be_visible()
    settled(page)
    page.get_by_role("button", name="Yes, delete forever").click()

    expect(page.get_by_text(f"Deleted “{LEASE}” forever.")).to_be_visible()
    expect(page.get_by_text("Trash (0)")).to_be_visible()
    assert seeded.trash.list() == []
    assert {c.title for c in seeded.conversations.list()} == {TRUST, REPORT}

    go_to(page, "Chat")
    expect(sidebar.get_by_role("button", name=TRUST)).to_be_visible()
    expect(sidebar.get_by_role("button", name=LEASE)).to_have_count(0)
    settled(page)
    page.screenshot(path=str(ARTIFACTS / "trash_restored_in_sidebar.png"), full_page=True)


def test_empty_trash_asks_first_then_purges_every_deleted_conversation(app_url, page, seeded):
    for title in (TRUST, LEASE):
        seeded.conversations.delete(_conversation(seeded, title, "Who signs for the trustee?"))
    report_id = _conversation(seeded, REPORT, "What was recurring revenue in Q3?")

    _open_settings(page, app_url)
    expect(page.get_by_text("Trash (2)")).to_be_visible()

    page.get_by_role("button", name="Empty trash").click()
    question = page.get_by_text("Delete the 2 conversations in the trash forever, with their messages? "
                                "This cannot be undone.")
    expect(question).to_be_visible()
    page.get_by_role("button", name="Cancel").click()
    expect(question).to_have_count(0)
    expect(page.get_by_text("Trash (2)")).to_be_visible()

    settled(page)  # a click during a run can be lost when the button is drawn anew
    page.get_by_role("button", name="Empty trash").click()
    expect(page.get_by_role("button", name="Yes, delete forever")).to_be_visible()
    settled(page)
    page.get_by_role("button", name="Yes, delete forever").click()

    expect(page.get_by_text("The trash is empty.")).to_be_visible()
    expect(page.get_by_text("Trash (0)")).to_be_visible()
    _drawn(page)
    page.screenshot(path=str(ARTIFACTS / "trash_emptied.png"), full_page=True)
    assert seeded.trash.list() == []
    assert [c.id for c in seeded.conversations.list()] == [report_id]
