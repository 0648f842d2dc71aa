"""Every error leaves the API as `{"detail": ...}` with a status that says whose fault it is.

A docchat error is the user's message as it is: 404 for something that is not there, 503 when
the LLM server is down or too slow, 400 for the rest (bad input, a file that cannot be read or
imported). Validation errors keep FastAPI's 422 and its field paths. Nothing else escapes with
its traceback: an unexpected failure is logged here and answered with one line. Under the
OpenAI-compatible /v1 the body also carries OpenAI's `{"error": {...}}`, which its clients read.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from docchat.errors import ContextOverflow, DocchatError, IndexInUse, LLMError, NotFound, StoreUnavailable

log = logging.getLogger(__name__)

OPENAI_PREFIX = "/v1/"


def one_line(error: BaseException | str) -> str:
    return " ".join(str(error).split())


def stream_failure(error: BaseException) -> str:
    """What a client is told of an answer that failed mid-stream: the reason when it is one a
    user can read, otherwise no more than the kind of failure (the log has the rest)."""
    if isinstance(error, DocchatError):
        return one_line(error)
    log.error("an answer failed", exc_info=error)
    return f"internal error ({type(error).__name__}); see the server's log"


def status_of(error: DocchatError) -> int:
    if isinstance(error, NotFound):
        return 404
    if isinstance(error, ContextOverflow):
        return 400
    if isinstance(error, (LLMError, StoreUnavailable, IndexInUse)):
        return 503
    return 400


def error_response(path: str, status: int, detail, headers: dict | None = None, *,
                   code: str | None = None) -> JSONResponse:
    body = {"detail": detail}
    if path.startswith(OPENAI_PREFIX):
        message = detail if isinstance(detail, str) else "; ".join(
            f"{'.'.join(str(part) for part in item['loc'])}: {item['msg']}" for item in detail)
        body["error"] = {"message": message, "type": _openai_type(status), "param": None,
                         "code": code}
    return JSONResponse(body, status_code=status, headers=headers)


def install(app: FastAPI) -> None:
    @app.exception_handler(DocchatError)
    async def docchat_error(request: Request, error: DocchatError) -> JSONResponse:
        return error_response(request.url.path, status_of(error), one_line(error))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return error_response(request.url.path, error.status_code, error.detail, getattr(error, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        # Without the input: it may be a whole history sent back.
        detail = [{"loc": list(item["loc"]), "msg": item["msg"], "type": item["type"]} for item in error.errors()]
        return error_response(request.url.path, 422, detail)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> JSONResponse:
        log.exception("%s %s failed", request.method, request.url.path)
        return error_response(request.url.path, 500, f"internal error ({type(error).__name__}); see the server's log")


def _openai_type(status: int) -> str:
    if status == 401:
        return "authentication_error"
    if status == 404:
        return "not_found_error"
    if status >= 500:
        return "server_error"
    return "invalid_request_error"
