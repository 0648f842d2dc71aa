"""The composition root takes every adapter: services wired over fakes touch no database, no
LLM server and no index, so a service can be tested without them."""

from __future__ import annotations

from docchat.bootstrap import build_services
from docchat.config import Settings

from tests.unit.fakes import FakeGateway, FakeLibrary, FakeUnitOfWork, WordCounter, chunk


def test_services_wired_over_fakes_keep_conversations_in_the_fake_store_and_open_nothing(tmp_path):
    uow, counter = FakeUnitOfWork(), WordCounter()

    services = build_services(Settings(data_dir=tmp_path / "data"), uow=uow, counter=counter,
                              gateway=FakeGateway(counter=counter), index=lambda: None, contact_llm=False)
    conversation = services.conversations.create("Lease questions")
    services.conversations.post_user_message(conversation.id, "When may the tenant break the lease?")
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
                              gateway=gateway, index=lambda: None, retriever=library, contact_llm=False)
    turn = services.chat.answer(None, "When is the rent reviewed?")

    assert turn.text() == "The rent is reviewed every fifth year [1]."
    assert services.chat is services.chat and services.stateless is services.stateless
    assert library.queries  # the answer was prepared over the retriever given
