"""One way to hand an answer back, for every route that answers: whole, or as server-sent events.

Events: `delta` (`{"text"}`) for each piece of the answer, then one `done` whose data is the
response the same request would get without streaming; or `error` (`{"detail"}`) when the
answer fails on the way.
"""

from __future__ import annotations

from typing import AsyncIterator, Callable

from starlette.requests import Request

from docchat.api.errors import stream_failure
from docchat.api.streaming import EventStream, TurnReader, finish, sse


# For the OpenAPI schema of the answering routes.
STREAMED = {200: {"content": {"text/event-stream": {"schema": {"type": "string"}}},
                  "description": "The answer as JSON, or with `\"stream\": true` as server-sent events."}}


async def respond(turn, request: Request, body: Callable[[object], dict], *, stream: bool):
    # A turn that failed before it began (the LLM server down) is an error response, not a
    # stream: its question is kept and the failed answer says why, as on the page.
    if turn.failure is not None or not stream:
        await finish(turn, request)
        return body(turn)
    reader = TurnReader(turn)
    return EventStream(_events(reader, body), reader)


async def _events(reader: TurnReader, body: Callable[[object], dict]) -> AsyncIterator[str]:
    turn = reader.turn
    try:
        async for delta in reader.deltas():
            yield sse("delta", {"text": delta})
    except Exception as error:
        yield sse("error", {"detail": stream_failure(error)})
        return
    yield sse("done", body(turn))
