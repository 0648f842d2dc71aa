"""Conversations: list, create, read, rename and pin, delete (to the trash), scope, search.

Every id in a path may be typed short: any unique start of it, at least 4 characters.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Response

from docchat.api import deps
from docchat.api.schemas import (
    ConversationChange,
    ConversationDetail,
    ConversationOut,
    NewConversation,
    Scope,
    SearchHitOut,
    from_conversation,
    from_message,
)
from docchat.domain.titles import DEFAULT_TITLE, clean_title

router = APIRouter(prefix="/api/v1", tags=["conversations"])


@router.get("/conversations", response_model=list[ConversationOut])
def list_conversations(services=Depends(deps.services)):
    """Pinned first, then the most recently updated."""
    return [from_conversation(c) for c in services.conversations.list()]


@router.post("/conversations", response_model=ConversationOut, status_code=201)
def create_conversation(body: NewConversation | None = None, services=Depends(deps.services)):
    title = body.title if body and body.title is not None else DEFAULT_TITLE
    return from_conversation(services.conversations.create(title))


@router.get("/conversations/{conversation_id}", response_model=ConversationDetail)
def get_conversation(conversation_id: str, services=Depends(deps.services)):
    """The conversation and the messages its history holds (of several versions, the one shown)."""
    conversations = services.conversations
    found = conversations.resolve_id(conversation_id)
    conversation = conversations.get(found)
    shown = [from_message(m) for m in services.messages.history(found) if m.shown]
    return {**from_conversation(conversation), "messages": shown}


@router.patch("/conversations/{conversation_id}", response_model=ConversationOut)
def change_conversation(conversation_id: str, body: ConversationChange, services=Depends(deps.services)):
    conversations = services.conversations
    found = conversations.resolve_id(conversation_id)
    if body.title is not None:
        clean_title(body.title)  # a bad title refuses the whole change, before any of it is made
    conversation = conversations.get(found)
    if body.title is not None:
        conversation = conversations.rename(found, body.title)
    if body.pinned is not None:
        conversation = conversations.pin(found) if body.pinned else conversations.unpin(found)
    if body.documents_only is not None:
        conversations.set_documents_only(found, body.documents_only)
        conversation = conversations.get(found)
    if body.quoted_answers is not None:
        conversations.set_quoted_answers(found, body.quoted_answers)
        conversation = conversations.get(found)
    return from_conversation(conversation)


@router.delete("/conversations/{conversation_id}", status_code=204)
def delete_conversation(conversation_id: str, services=Depends(deps.services)):
    """Moves it to the trash, as the page does (`docchat conversations restore` takes it back)."""
    conversations = services.conversations
    conversations.delete(conversations.resolve_id(conversation_id))
    return Response(status_code=204)


@router.put("/conversations/{conversation_id}/scope", response_model=ConversationOut)
def set_scope(conversation_id: str, body: Scope, services=Depends(deps.services)):
    """The documents the conversation searches; null: every document."""
    conversations = services.conversations
    found = conversations.resolve_id(conversation_id)
    conversations.set_document_scope(found, deps.document_ids(services, body.document_ids))
    return from_conversation(conversations.get(found))


@router.get("/search", response_model=list[SearchHitOut])
def search(q: str = Query(max_length=1_000), limit: int = Query(20, ge=1, le=100), services=Depends(deps.services)):
    """Ranked full-text search over titles and messages, with snippets."""
    return [hit.__dict__ for hit in services.messages.search(q, limit=limit)]
