"""OpenAI-compatible endpoints: any OpenAI client can use docchat as a model that knows your documents.

`POST /v1/chat/completions` answers the last user message from the documents, with the earlier
user and assistant messages as the conversation so far, through the stateless pipeline (the
one `docchat ask --history` and /api/v1/rag/query use); nothing is stored. System (and
developer) messages become the instructions sent after docchat's own system prompt. The one
model is `docchat`: another name is refused with OpenAI's 404 `model_not_found`. Sampling
parameters (temperature, max_tokens, n, tools...) are accepted and ignored: the answer length
and sampling are docchat's settings. Citations come in an extension field, `docchat`, on the
response, and on the last chunk of a stream (the one with a finish_reason). A request may carry the
same field to choose how to answer and write it: `"docchat": {"plan": "compare"}`, or
`{"form": "free"}` for the model's own words (an OpenAI client's `extra_body`).
"""

from __future__ import annotations

import time
import uuid
from typing import AsyncIterator, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from docchat.exchange import citation_wire, plan_wire
from docchat.api import deps
from docchat.api.errors import error_response, stream_failure
from docchat.api.schemas import AskedForm, AskedPlan, Strict
from docchat.api.streaming import EventStream, TurnReader, finish, sse
from docchat.domain import AnswerForm, Status
from docchat.domain.approach import asked
from docchat.errors import InvalidInput


MODEL = "docchat"
# When the model was "made": the API's start; OpenAI reports a Unix time here.
STARTED = int(time.time())

router = APIRouter(prefix="/v1", tags=["OpenAI-compatible"])


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant"]
    content: str | list[ContentPart] | None = None


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")
    include_usage: bool = False


class DocchatOptions(Strict):
    """docchat's own choices, in the request's `docchat` field."""

    plan: AskedPlan = None
    form: AskedForm = None


class ChatCompletionRequest(BaseModel):
    # OpenAI clients send many optional parameters; they are accepted and ignored (see above).
    model_config = ConfigDict(extra="allow")
    model: str
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    docchat: DocchatOptions | None = None


def _model_card() -> dict:
    return {"id": MODEL, "object": "model", "created": STARTED, "owned_by": "docchat"}


@router.get("/models")
def list_models():
    return {"object": "list", "data": [_model_card()]}


@router.get("/models/{model}")
def get_model(model: str, request: Request):
    if model != MODEL:
        return _no_such_model(request, model)
    return _model_card()


@router.post("/chat/completions")
async def chat_completions(body: ChatCompletionRequest, request: Request, services=Depends(deps.services)):
    if body.model != MODEL:
        return _no_such_model(request, body.model)
    instructions, history, question = _conversation(body.messages)
    plan = asked(body.docchat.plan) if body.docchat else None
    form = AnswerForm(body.docchat.form) if body.docchat and body.docchat.form else None
    turn = await run_in_threadpool(services.stateless.answer, history, question, instructions=instructions, plan=plan,
                                   form=form)
    completion = {"id": f"chatcmpl-{uuid.uuid4().hex}", "created": int(time.time()), "model": MODEL}
    if body.stream:
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        reader = TurnReader(turn)
        return EventStream(_chunks(reader, completion, include_usage), reader)
    await finish(turn, request)
    return {**completion, "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": turn.answer.content},
                         "finish_reason": _finish_reason(turn), "logprobs": None}],
            "usage": _usage(turn), "docchat": _extension(turn)}


def _conversation(messages: list[ChatMessage]) -> tuple[str, list[dict], str]:
    """(instructions, history, question) of an OpenAI message list."""
    if messages[-1].role != "user":
        raise InvalidInput("the last message must be the user's question")
    instructions = [_text(m, number) for number, m in enumerate(messages, 1) if m.role in ("system", "developer")]
    history = [{"role": m.role, "content": _text(m, number)} for number, m in enumerate(messages[:-1], 1)
               if m.role in ("user", "assistant")]
    return "\n\n".join(t for t in instructions if t.strip()), history, _text(messages[-1], len(messages))


def _text(message: ChatMessage, number: int) -> str:
    content = message.content
    if content is None or isinstance(content, str):
        return content or ""
    if any(part.type != "text" or part.text is None for part in content):
        raise InvalidInput(f"message {number}: only text content is supported")
    return "\n".join(part.text for part in content)


async def _chunks(reader: TurnReader, completion: dict, include_usage: bool) -> AsyncIterator[str]:
    turn = reader.turn

    def chunk(delta: dict, finish_reason: str | None = None, **extra) -> str:
        body = {**completion, "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}], **extra}
        return sse(None, {**body, "usage": None} if include_usage and "usage" not in extra else body)

    yield chunk({"role": "assistant", "content": ""})
    try:
        async for delta in reader.deltas():
            yield chunk({"content": delta})
    except Exception as error:
        yield sse(None, {"error": {"message": stream_failure(error), "type": "server_error", "param": None,
                                   "code": None}})
        yield sse(None, "[DONE]")
        return
    yield chunk({}, _finish_reason(turn), docchat=_extension(turn))
    if include_usage:
        yield sse(None, {**completion, "object": "chat.completion.chunk", "choices": [], "usage": _usage(turn)})
    yield sse(None, "[DONE]")


def _finish_reason(turn) -> str:
    return "length" if turn.answer.status is Status.TRUNCATED else "stop"


def _usage(turn) -> dict:
    usage = dict(turn.usage or {})
    prompt = usage.get("prompt_tokens", turn.budget.prompt if turn.budget else 0)
    completion = usage.get("completion_tokens", turn.answer.token_count or 0)
    return {**usage, "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _extension(turn) -> dict:
    return {"citations": [citation_wire.to_api(c) for c in turn.answer.facts.citations],
            "cited": [citation_wire.to_api(c) for c in turn.answer.cited],
            "citation_check": citation_wire.check_to_api(turn.answer.facts.grounding),
            "rewritten_query": turn.stats.rewritten_query if turn.stats else None,
            "evidence": turn.evidence.as_dict() if turn.evidence else None,
            **plan_wire.to_api(turn.answer.facts),
            "status": turn.answer.status.value, "mode": turn.budget.mode if turn.budget else None}


def _no_such_model(request: Request, model: str):
    return error_response(request.url.path, 404, f"the model `{model}` does not exist: docchat serves one model, "
                          f"`{MODEL}`", code="model_not_found")
