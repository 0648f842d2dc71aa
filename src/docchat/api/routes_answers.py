"""Answers: stateless (the caller keeps the history) and in a stored conversation."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from starlette.concurrency import run_in_threadpool

from docchat.api import deps
from docchat.api.answers import STREAMED, respond
from docchat.domain.approach import asked
from docchat.domain.grounding import answer_form
from docchat.api.schemas import AnswerOut, NewMessage, RagQuery, Retry, StoredAnswerOut, from_stored_turn, from_turn

router = APIRouter(prefix="/api/v1", tags=["answers"])


@router.post("/rag/query", response_model=AnswerOut, responses=STREAMED)
async def rag_query(body: RagQuery, request: Request, services=Depends(deps.services)):
    """Answers `query` from the documents, with `conversation_history` as the conversation so far
    (the same pipeline as a stored conversation: budget, follow-up reading, citations); stores nothing."""
    history = [item.model_dump() for item in body.conversation_history or []]

    def start():
        scope = deps.document_ids(services, body.document_ids)
        return services.stateless.answer(history, body.query, document_ids=scope, top_k=body.top_k,
                                         plan=asked(body.plan), form=answer_form(body.form))

    return await respond(await run_in_threadpool(start), request, from_turn, stream=body.stream)


@router.post("/conversations/{conversation_id}/messages", response_model=StoredAnswerOut, responses=STREAMED)
async def post_message(conversation_id: str, body: NewMessage, request: Request, services=Depends(deps.services)):
    """Stores the question, then answers it in the conversation (a stopped or cut-off answer is
    kept as interrupted)."""

    def start():
        return services.chat.answer(services.conversations.resolve_id(conversation_id), body.content,
                                    plan=asked(body.plan), form=answer_form(body.form))

    return await respond(await run_in_threadpool(start), request, from_stored_turn, stream=body.stream)


@router.post("/conversations/{conversation_id}/retry", response_model=StoredAnswerOut, responses=STREAMED)
async def retry(conversation_id: str, request: Request, body: Retry | None = None, services=Depends(deps.services)):
    """Answers the last question again; an answer it had is kept as an earlier version."""

    def start():
        return services.chat.retry(services.conversations.resolve_id(conversation_id),
                                   plan=asked(body.plan if body else None), form=answer_form(body.form if body else None))

    return await respond(await run_in_threadpool(start), request, from_stored_turn, stream=bool(body and body.stream))
