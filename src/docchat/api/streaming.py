"""Answers read off the event loop, and the client's hanging up noticed at once.

A turn is a blocking generator (the model's deltas), so each answer is read on a thread of its
own (`TurnReader`) and handed to the loop through a queue: other clients are served meanwhile.
When the client goes away (a closed connection, a cancelled request), the turn is stopped and
closed as the page's Stop does: what arrived is kept as `interrupted`, and the LLM request is
aborted rather than left to run for nobody (on two cores it would hold the engine).

`EventStream` listens for the disconnect itself: under uvicorn's ASGI 2.4 a streaming response
only learns of it on its next write, and an answer may be silent for long (a slow prefill).
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import AsyncIterator

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

# How often a request that waits for a whole answer checks that its client is still there.
DISCONNECT_POLL_S = 0.25
_DELTA, _END, _FAILED = "delta", "end", "failed"


class TurnReader:
    """Reads a turn on a thread of its own from the moment it is made, so that a turn handed to
    a response is read to its end even if the response never starts (its client gone first):
    a stored answer must not be left `streaming`."""

    def __init__(self, turn):
        self.turn = turn
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue = asyncio.Queue()
        self._gone = threading.Event()
        threading.Thread(target=self._read, name="docchat-api-answer", daemon=True).start()

    async def deltas(self) -> AsyncIterator[str]:
        """The turn's text deltas; raises what the turn raises. Leaving early stops the turn."""
        try:
            while True:
                kind, item = await self._queue.get()
                if kind == _DELTA:
                    yield item
                elif kind == _END:
                    return
                else:
                    raise item
        finally:
            self.close()

    def close(self) -> None:
        """Stops the turn (if it still runs); what arrived is kept as interrupted."""
        self._gone.set()
        self.turn.stop.set()

    def _put(self, kind: str, item) -> None:
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, (kind, item))
        except RuntimeError:  # the loop has closed: nobody is listening any more
            pass

    def _read(self) -> None:
        try:
            for delta in self.turn:
                if self._gone.is_set():
                    break
                self._put(_DELTA, delta)
            self._put(_END, None)
        except BaseException as error:
            self._put(_FAILED, error)
        finally:
            self.turn.close()  # on this thread, the one iterating it: settles a turn left early


async def finish(turn, request: Request) -> None:
    """Reads the whole answer on a worker thread (in one go: no hand-over per delta); a client
    that hangs up meanwhile stops it. Raises what the turn raises."""

    async def watch() -> None:
        while not await request.is_disconnected():
            await asyncio.sleep(DISCONNECT_POLL_S)
        turn.stop.set()

    watcher = asyncio.ensure_future(watch())
    try:
        await run_in_threadpool(_read_whole, turn)
    except asyncio.CancelledError:
        turn.stop.set()  # the worker goes on to the end of the turn, which now stops at once
        raise
    finally:
        watcher.cancel()


def _read_whole(turn) -> None:
    try:
        turn.text()
    finally:
        turn.close()


def sse(event: str | None, data) -> str:
    """One server-sent event; the JSON has no newline, so one `data:` line carries it."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
    return (f"event: {event}\n" if event else "") + f"data: {payload}\n\n"


class EventStream(StreamingResponse):
    """Server-sent events of one answer; however the response ends, its reader is closed."""

    media_type = "text/event-stream"

    def __init__(self, content: AsyncIterator[str], reader: TurnReader):
        super().__init__(content, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        self._reader = reader

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with anyio.create_task_group() as group:
                async def stream() -> None:
                    try:
                        await self.stream_response(send)
                    except OSError:  # written to a client already gone
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(stream)
                await self.listen_for_disconnect(receive)
                group.cancel_scope.cancel()
        finally:
            self._reader.close()
