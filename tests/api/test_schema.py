"""Generated requests for every operation of the OpenAPI schema: no 500, no traceback, and a
request the API refuses (4xx) leaves the data dir as it was."""

from __future__ import annotations

import types

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from docchat.api import create_app
from docchat.config import Settings
from docchat.documents.registry import READABLE

from tests.api.conftest import stored

# The schema does not depend on the data: it is read once, from an app over no services (but the
# kinds of document the library reads, which the upload's documentation names).
no_services = types.SimpleNamespace(settings=Settings(),
                                    ingestion=types.SimpleNamespace(kinds_in_words=lambda: READABLE))
# Following a folder is left out: a generated path such as "/" would be followed, and the whole
# disk read into the library (tests/api/test_folders.py tries its refusals instead).
schema = schemathesis.openapi.from_dict(create_app(no_services).openapi()).exclude(method="POST",
                                                                                   path="/api/v1/folders")


@pytest.fixture
def app(api_services):
    return create_app(api_services)


@schema.parametrize()
@settings(max_examples=25, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
def test_no_request_breaks_the_api_and_a_refused_one_changes_nothing(case, app, api_services):
    before = stored(api_services)

    response = case.call(app=app, base_url="http://testserver")

    case.validate_response(response, checks=[not_a_server_error])
    assert "Traceback" not in response.text
    if 400 <= response.status_code < 500:
        assert stored(api_services) == before, f"{response.status_code} {response.text[:200]}"
