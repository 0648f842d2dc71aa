"""The trash on the Settings page, one run at a time (AppTest), over a temporary data dir."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def _settings_page() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "2_Settings.py"), default_timeout=30).run()


def _deleted(services, title: str, *questions: str) -> str:
    conversation = services.conversations.create(title)
    for question in questions:
        services.messages.append_message(conversation.id, "user", question)
    services.conversations.delete(conversation.id)
    return conversation.id


def test_the_trash_lists_each_deleted_conversation_with_its_message_count(services):
    _deleted(services, "Lease renewal for the Leeds office", "When can we break the lease?")
    _deleted(services, "Hartley family trust agreement", "Who is the trustee?", "Who are the beneficiaries?")

    page = _settings_page()

    assert [s.value for s in page.subheader if s.value.startswith("Trash")] == ["Trash (2)"]
    assert [m.value for m in page.markdown if m.value.startswith("**")] == [
        "**Hartley family trust agreement**", "**Lease renewal for the Leeds office**"]
    assert {c.value for c in page.caption} >= {"Deleted just now · 2 messages", "Deleted just now · 1 message"}


def test_restore_brings_the_conversation_back_and_says_so_in_one_line(services):
    trust_id = _deleted(services, "Hartley family trust agreement", "Who is the trustee?")
    page = _settings_page()

    page.button(key=f"settings_restore_{trust_id}").click().run()

    assert [c.id for c in services.conversations.list()] == [trust_id]
    [done] = page.success
    assert done.value.startswith("Restored “Hartley family trust agreement”")
    assert [s.value for s in page.subheader if s.value.startswith("Trash")] == ["Trash (0)"]


def test_delete_forever_asks_first_and_cancel_keeps_the_conversation(services):
    trust_id = _deleted(services, "Hartley family trust agreement", "Who is the trustee?")
    page = _settings_page()

    page.button(key=f"settings_purge_{trust_id}").click().run()

    assert [w.value for w in page.warning if "forever" in w.value] == [
        "Delete “Hartley family trust agreement” forever, with its 1 message? This cannot be undone."]
    assert [c.id for c in services.trash.list()] == [trust_id]
    page.button(key="settings_purge_no").click().run()
    assert not [w for w in page.warning if "forever" in w.value]
    assert [c.id for c in services.trash.list()] == [trust_id]

    page.button(key=f"settings_purge_{trust_id}").click().run()
    page.button(key="settings_purge_yes").click().run()

    assert services.trash.list() == []
    assert services.health.store().messages == 0
