"""What routes are given: the services the app was built with, and ids typed short made whole."""

from __future__ import annotations

from fastapi import Request

from docchat.errors import InvalidInput, NotFound


def services(request: Request):
    return request.app.state.services()


def document_ids(services, given: list[str] | None) -> list[str] | None:
    """Full ids for the documents a request names (unique prefixes will do); one unknown refuses it."""
    if given is None:
        return None
    found = []
    for prefix in given:
        try:
            found.append(services.documents.resolve_id(prefix))
        except NotFound as error:
            # Named in the body, not the path: the request is wrong, not the address.
            raise InvalidInput(str(error)) from None
    return list(dict.fromkeys(found))
