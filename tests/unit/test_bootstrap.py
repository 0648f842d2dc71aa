"""The composition root takes every adapter: services wired over fakes touch no database, no
LLM server and no index, so a service can be tested without them."""

from __future__ import annotations

from docchat.bootstrap import build_services
from docchat.domain import AnswerForm
from docchat.config import Settings

from tests.unit.fakes import (FakeDisk, FakeEmbedder, FakeFiles, FakeGateway, FakeIndex, FakeLibrary, FakeParser,
                              FakeRenderer, FakeUnitOfWork, WordCounter, chunk)


def test_services_wired_over_fakes_keep_conversations_in_the_fake_store_and_open_nothing(tmp_path):
    uow, counter = FakeUnitOfWork(), WordCounter()

    services = build_services(Settings(data_dir=tmp_path / "data"), uow=uow, counter=counter,
                              gateway=FakeGateway(counter=counter), index=lambda: None, contact_llm=False)
    conversation = services.conversations.create("Lease questions")
    services.messages.post_user_message(conversation.id, "When may the tenant break the lease?")
    services.close()

    assert [c.title for c in services.conversations.list()] == ["Lease questions"]
    assert [m.content for m in uow.conversations.messages(conversation.id)] == ["When may the tenant break the lease?"]
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").rglob("*.db"))


def test_services_that_never_asked_the_server_answer_through_one_chat_built_at_its_first_question(tmp_path):
    uow, counter = FakeUnitOfWork(), WordCounter()
    gateway = FakeGateway(counter=counter)
    gateway.enqueue(["The rent is reviewed every fifth year [1]."])
    library = FakeLibrary(chunk("Whitby lease", 0, "The rent is reviewed every fifth year."))

    services = build_services(Settings(data_dir=tmp_path / "data", context_programs=False), uow=uow, counter=counter,
                              gateway=gateway, index=lambda: None, retriever=library, figures=library,
                              contact_llm=False)
    turn = services.chat.answer(None, "When is the rent reviewed?", form=AnswerForm.FREE)

    assert turn.text() == "The rent is reviewed every fifth year [1]."
    assert services.chat is services.chat and services.stateless is services.stateless
    assert library.queries  # the answer was prepared over the retriever given


class _KeptPreferences:
    """The Preferences port in memory: what the Settings page saved, nothing on disk."""

    def __init__(self):
        self.saved: dict[str, object] = {}

    def locked(self) -> set[str]:
        return set()

    def save(self, changes: dict[str, object]) -> None:
        self.saved.update(changes)


def test_followed_folders_and_saved_settings_go_through_the_adapters_given(tmp_path):
    uow, counter, disk, kept = FakeUnitOfWork(), WordCounter(), FakeDisk(), _KeptPreferences()
    disk.write("/home/ada/Notes", "kiln.md", b"The kiln fires at 1,280 degrees.", 1)
    index = FakeIndex()

    services = build_services(Settings(data_dir=tmp_path / "data"), uow=uow, counter=counter,
                              gateway=FakeGateway(counter=counter), embedder=FakeEmbedder(), index=lambda: index,
                              parser=FakeParser(), files=FakeFiles(), renderer=FakeRenderer(), folders=disk,
                              preferences=kept, contact_llm=False)
    report = services.folders.add("/home/ada/Notes")
    services.preferences.save({"passages_max": 12})

    assert report.counts.added == 1 and [d.name for d in services.documents.list()] == ["kiln.md"]
    assert disk.opened == ["/home/ada/Notes/kiln.md"]
    assert kept.saved == {"passages_max": 12}
    assert not (tmp_path / "data").exists()
