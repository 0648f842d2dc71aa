"""docchat's HTTP API (FastAPI): /api/v1/... and the OpenAI-compatible /v1/chat/completions.

It calls the same services as the page and the CLI and adds no use case of its own: routes
read the request, call one service method, and shape what it returns.
"""

from docchat.api.app import create_app

__all__ = ["create_app"]
