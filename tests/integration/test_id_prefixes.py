"""Ids typed short, resolved by the services over a real SQLite file."""

from __future__ import annotations

import pytest

from docchat.domain import Document, DocumentStatus, utcnow
from docchat.errors import InvalidInput, NotFound

from tests.integration.sample_data import conversation_with_id

TRUST_ID = "5b0e8f2c-1d4a-4c1e-9a7b-2f6d3e8c9a10"
LEASE_ID = "5b0e91aa-7c3d-4b2e-8f10-6a5d4c3b2a19"
REPORT_ID = "5b0e0c77-2e4f-4a6b-9c8d-1e2f3a4b5c6d"
BOARD_ID = "5b0ef001-3a2b-4c5d-8e9f-0a1b2c3d4e5f"


@pytest.fixture
def three(services):
    """Three conversations whose ids all start with 5b0e."""
    conversation_with_id(services, TRUST_ID, "Hartley family trust agreement")
    conversation_with_id(services, LEASE_ID, "Lease renewal for the Leeds office")
    conversation_with_id(services, REPORT_ID, "Q3 2025 quarterly report")
    return services.conversations


def test_a_full_id_names_its_own_conversation(three):
    assert three.resolve_id(TRUST_ID) == TRUST_ID


def test_a_unique_start_of_an_id_names_its_conversation(three):
    assert three.resolve_id("5b0e8f2c") == TRUST_ID


def test_a_start_shared_by_several_names_them_and_asks_for_more(three):
    with pytest.raises(InvalidInput) as refused:
        three.resolve_id("5b0e")

    message = str(refused.value)
    assert message.startswith("5b0e matches 3 conversations: ")
    assert message.endswith("; type more of the id")
    for conversation_id, title in ((TRUST_ID, "Hartley family trust agreement"),
                                   (LEASE_ID, "Lease renewal for the Leeds office"),
                                   (REPORT_ID, "Q3 2025 quarterly report")):
        assert f"{conversation_id} ({title})" in message


def test_past_three_matches_the_rest_are_counted(services, three):
    conversation_with_id(services, BOARD_ID, "Board minutes, March")

    with pytest.raises(InvalidInput, match=r"5b0e matches 4 conversations: .* and 1 more; type more of the id"):
        three.resolve_id("5b0e")


def test_a_start_no_id_has_is_not_found(three):
    with pytest.raises(NotFound, match="^no conversation starts with 9f3a$"):
        three.resolve_id("9f3a")


def test_a_full_id_no_conversation_has_is_reported_as_an_unknown_id(three):
    with pytest.raises(NotFound, match="^no conversation with id 9f3a0000-1d4a-4c1e-9a7b-2f6d3e8c9a10$"):
        three.resolve_id("9f3a0000-1d4a-4c1e-9a7b-2f6d3e8c9a10")


def test_fewer_than_four_characters_are_refused(three):
    with pytest.raises(InvalidInput, match="'5b0' is too short: give at least 4 characters of the conversation id"):
        three.resolve_id("5b0")


def test_a_short_id_typed_in_full_still_names_its_conversation(services):
    conversation_with_id(services, "q3", "Q3 2025 quarterly report")

    assert services.conversations.resolve_id("q3") == "q3"


def test_deleted_conversations_count_only_when_asked_for(services, three):
    three.delete(LEASE_ID)

    with pytest.raises(NotFound, match="no conversation starts with 5b0e91"):
        three.resolve_id("5b0e91")
    assert three.resolve_id("5b0e91", include_deleted=True) == LEASE_ID


def test_percent_and_underscore_are_matched_as_themselves(three):
    with pytest.raises(NotFound):
        three.resolve_id("5b0_")
    with pytest.raises(NotFound):
        three.resolve_id("5b%e")


def test_ids_are_compared_exactly_case_included(three):
    with pytest.raises(NotFound, match="no conversation starts with 5B0E8F2C"):
        three.resolve_id("5B0E8F2C")


# documents


def document_with_id(services, document_id: str, name: str) -> None:
    document = Document(id=document_id, name=name, kind="pdf", path=f"documents/{name}", size=48_213,
                        content_hash=f"sha256-{document_id}", pages=12, chunks=0, status=DocumentStatus.READY,
                        added_at=utcnow())
    with services.documents._uow(write=True) as uow:
        uow.documents.add(document)
        uow.commit()


def test_a_unique_start_of_a_document_id_names_its_document(services):
    document_with_id(services, "0d0c4e21-aa10-4b2c-9d3e-5f6a7b8c9d0e", "trust-agreement.pdf")
    document_with_id(services, "0d0c9b33-bb20-4c3d-8e4f-6a7b8c9d0e1f", "lease.pdf")

    assert services.documents.resolve_id("0d0c4e") == "0d0c4e21-aa10-4b2c-9d3e-5f6a7b8c9d0e"


def test_a_start_shared_by_two_documents_names_them_by_file_name(services):
    document_with_id(services, "0d0c4e21-aa10-4b2c-9d3e-5f6a7b8c9d0e", "trust-agreement.pdf")
    document_with_id(services, "0d0c9b33-bb20-4c3d-8e4f-6a7b8c9d0e1f", "lease.pdf")

    with pytest.raises(InvalidInput, match=r"^0d0c matches 2 documents: .*\(lease\.pdf\), .*\(trust-agreement\.pdf\);"):
        services.documents.resolve_id("0d0c")


def test_a_start_no_document_id_has_is_not_found(services):
    with pytest.raises(NotFound, match="^no document starts with 0d0c$"):
        services.documents.resolve_id("0d0c")
