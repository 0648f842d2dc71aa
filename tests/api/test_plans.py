"""How an answer was planned, over HTTP: a question naming two documents is answered as a
comparison, and every door (the stateless query, a stored conversation and its messages, the
OpenAI-compatible extension) says so, with what the answer covered."""

from __future__ import annotations

import json

import pytest

from docchat.context.quotes import LEAD_PROMPT

from docchat.errors import LLMUnavailable

from tests.api.conftest import events

LEASE_2024 = """# Lease of 4 Quay Street, 2024

The tenant pays a rent of GBP 1,200 every month, on the first day of the month.
The tenant may keep one cat.
"""
LEASE_2025 = """# Lease of 4 Quay Street, 2025

The tenant pays a rent of GBP 3,900 every quarter, on the first day of the quarter.
No pets may be kept.
"""
COMPARE = "Compare the rent in the 2024 lease and the 2025 lease"


@pytest.fixture
def leases(client) -> None:
    for name, text in (("lease-2024.md", LEASE_2024), ("lease-2025.md", LEASE_2025)):
        response = client.post("/api/v1/documents", files={"file": (name, text.encode(), "text/markdown")})
        assert response.status_code == 201, response.text


def test_a_stateless_comparison_says_its_plan_the_documents_compared_and_what_it_covered(client, gateway, leases):
    body = client.post("/api/v1/rag/query", json={"query": COMPARE}).json()

    assert body["plan"] == "compare"
    assert body["plan_documents"] == ["lease-2024.md", "lease-2025.md"]
    assert body["coverage"] == {"documents_read": 2, "documents_in_scope": 2, "left_out": [], "rounds": 1}
    # docchat's table of what each lease says (issue 54); the model, judged to cite well, is asked
    # only for a sentence above it, kept if the quotes hold it ("fine." is not).
    assert body["answer_form"] == "quoted" and asked_for(gateway) == [LEAD_PROMPT]
    assert body["answer"].startswith("| Document | What it says |\n| --- | --- |\n| lease-2024.md | \u201cThe tenant pays")


def test_a_stored_answer_keeps_its_plan_and_the_conversation_gives_it_back(client, gateway, leases):
    conversation = client.post("/api/v1/conversations", json={}).json()

    response = client.post(f"/api/v1/conversations/{conversation['id']}/messages",
                           json={"content": COMPARE, "stream": True})

    done = json.loads(events(response.text)[-1][1])
    assert (done["plan"], done["coverage"]["documents_read"]) == ("compare", 2)
    [question, answer] = client.get(f"/api/v1/conversations/{conversation['id']}").json()["messages"]
    assert (question["plan"], question["coverage"], question["answer_form"]) == (None, None, None)
    assert (answer["plan"], answer["plan_documents"], answer["coverage"]["documents_in_scope"]) == \
        ("compare", ["lease-2024.md", "lease-2025.md"], 2)
    assert (done["answer_form"], answer["answer_form"]) == ("quoted", "quoted")
    assert "| lease-2025.md | \u201cThe tenant pays a rent of GBP 3,900" in answer["content"]


def test_a_lookup_says_so_and_carries_no_coverage(client, gateway, leases):
    gateway.enqueue(["One cat [1]."])

    body = client.post("/api/v1/rag/query", json={"query": "May the tenant keep a cat?"}).json()

    assert (body["plan"], body["plan_documents"], body["coverage"]) == ("lookup", [], None)


def test_the_openai_compatible_answer_carries_the_plan_in_its_docchat_extra(docchat, gateway, leases):
    completion = docchat.chat.completions.create(model="docchat", messages=[{"role": "user", "content": COMPARE}])

    extra = completion.model_extra["docchat"]
    assert (extra["plan"], extra["coverage"]["documents_read"], extra["answer_form"]) == ("compare", 2, "quoted")
    # The message content is docchat's table, as every other door gives it.
    assert completion.choices[0].message.content.startswith("| Document | What it says |")


def test_a_question_asked_with_a_plan_is_answered_with_it(client, gateway, leases):
    gateway.enqueue(["Both say rent is paid on the first day [1][2]."])

    body = client.post("/api/v1/rag/query", json={"query": "When is the rent paid?", "plan": "compare"}).json()

    assert (body["plan"], body["coverage"]["documents_read"]) == ("compare", 2)


def test_an_answer_asked_again_another_way_is_a_new_version_with_that_plan(client, gateway, leases):
    conversation = client.post("/api/v1/conversations", json={}).json()
    gateway.enqueue(["One cat [1]."])
    gateway.enqueue(["The 2024 lease allows a cat [1]; the 2025 lease no pets [2]."])
    first = client.post(f"/api/v1/conversations/{conversation['id']}/messages",
                        json={"content": "May the tenant keep a cat?"}).json()

    again = client.post(f"/api/v1/conversations/{conversation['id']}/retry", json={"plan": "compare"}).json()

    assert (first["plan"], again["plan"]) == ("lookup", "compare")
    [question, answer] = client.get(f"/api/v1/conversations/{conversation['id']}").json()["messages"]
    assert (question["id"], answer["plan"]) == (again["question_id"], "compare")


@pytest.mark.parametrize(("plan", "status", "why"), [
    ("everything", 422, "Input should be 'lookup', 'collection', 'compare' or 'table'"),
    ("table", 400, "docchat found no figure to compute from a sheet in scope"),
])
def test_a_plan_docchat_cannot_follow_is_refused_and_nothing_is_asked(client, gateway, leases, plan, status, why):
    response = client.post("/api/v1/rag/query", json={"query": "When is the rent paid?", "plan": plan})

    assert response.status_code == status
    assert why in str(response.json()["detail"])
    assert gateway.requests == []


def test_a_comparison_asked_of_one_document_is_refused_in_words(client, gateway, leases):
    one = client.get("/api/v1/documents").json()[0]["id"]

    response = client.post("/api/v1/rag/query",
                           json={"query": "When is the rent paid?", "plan": "compare", "document_ids": [one]})

    assert response.status_code == 400
    assert response.json()["detail"] == "a comparison needs two or more documents in scope"


def test_a_figure_asked_of_a_sheet_is_computed_and_said_to_be(client, gateway):
    from tests.office_files import xlsx_of

    sheet = xlsx_of({"Stock": [["Location", "Pallets"], ["Oslo", 120], ["Oslo", 45], ["Oslo subtotal", 165],
                               ["Bergen", 25], ["Grand total", 190]]})
    client.post("/api/v1/documents", files={"file": ("harbour-inventory.xlsx", sheet, "application/octet-stream")})
    gateway.enqueue(["There are 165 pallets in Oslo [1]."])

    body = client.post("/api/v1/rag/query", json={"query": "How many pallets are stored in Oslo in total?"}).json()

    assert (body["plan"], body["plan_documents"]) == ("table", ["harbour-inventory.xlsx › Stock"])
    assert body["citations"][0]["text"].endswith("the total of Pallets where Location is Oslo is 165.")
    table = body["table"]
    assert (table["columns"], table["rows"], table["where"]) == (
        ["the total of Pallets where Location is Oslo"], [[165]], "Stock, rows 2-3")
    assert table["sql"].startswith('SELECT SUM("Pallets")') and "_kind = 'row'" in table["sql"]


def test_the_value_that_ranks_first_comes_with_its_figure_and_says_it_ranks(client, gateway):
    from tests.office_files import xlsx_of

    sheet = xlsx_of({"Stock": [["Location", "Pallets"], ["Oslo", 120], ["Oslo", 45], ["Oslo subtotal", 165],
                               ["Bergen", 130], ["Grand total", 295]]})
    client.post("/api/v1/documents", files={"file": ("harbour-inventory.xlsx", sheet, "application/octet-stream")})

    body = client.post("/api/v1/rag/query", json={"query": "Which location has the most pallets?"}).json()

    table = body["table"]
    assert (table["columns"], table["rows"], table["ranked"]) == (
        ["Location", "the Location with the highest total of Pallets"], [["Oslo", 165]], "highest")
    assert body["answer"].startswith("The Location with the highest total of Pallets is **Oslo**, at **165**")


def test_a_reading_docchat_is_unsure_of_says_so_and_names_the_words_it_did_not_read(client, gateway):
    from tests.office_files import xlsx_of

    sheet = xlsx_of({"Stock": [["Location", "Pallets"], ["Oslo", 120], ["Bergen", 130], ["Tromsø", 40]]})
    client.post("/api/v1/documents", files={"file": ("harbour-inventory.xlsx", sheet, "application/octet-stream")})

    body = client.post("/api/v1/rag/query", json={"query": "Which location has the second most pallets?"}).json()

    assert body["table"]["unread"] == ["second"]
    assert body["answer"].startswith("docchat is not sure it read your question right: it did not read “second”.")


def test_an_openai_compatible_request_chooses_its_plan_in_its_docchat_field(docchat, gateway, leases):
    gateway.enqueue(["Both say rent is paid on the first day [1][2]."])

    completion = docchat.chat.completions.create(model="docchat", messages=[{"role": "user", "content": "When is rent paid?"}],
                                                 extra_body={"docchat": {"plan": "compare"}})

    extra = completion.model_extra["docchat"]
    assert (extra["plan"], extra["coverage"]["documents_read"]) == ("compare", 2)


def test_an_openai_compatible_request_with_an_unknown_plan_is_refused(client, leases):
    response = client.post("/v1/chat/completions", json={
        "model": "docchat", "messages": [{"role": "user", "content": "When is rent paid?"}],
        "docchat": {"plan": "guess"}})

    assert response.status_code == 422 and "plan" in response.text


def test_a_question_asked_for_quotes_is_answered_with_the_documents_own_sentences(client, gateway, leases):
    body = client.post("/api/v1/rag/query", json={"query": "May the tenant keep a cat?", "form": "quoted"}).json()

    assert body["answer_form"] == "quoted" and body["model"] == "docchat (quoted)"
    assert "\u201cThe tenant may keep one cat.\u201d" in body["answer"]
    assert asked_for(gateway) == [LEAD_PROMPT]  # no model was asked but for a sentence above the quotes


def asked_for(gateway) -> list[str]:
    """The system prompt of each request the model was sent."""
    return [messages[0]["content"] for messages, *_ in gateway.requests]


def test_a_conversation_set_to_quote_its_documents_answers_in_quotes_with_the_llm_server_gone(client, gateway,
                                                                                              leases):
    conversation = client.post("/api/v1/conversations", json={}).json()
    changed = client.patch(f"/api/v1/conversations/{conversation['id']}", json={"quoted_answers": True}).json()
    assert (changed["quoted_answers"], changed["documents_only"]) == (True, None)
    gateway.down = LLMUnavailable("the LLM server is not running")

    response = client.post(f"/api/v1/conversations/{conversation['id']}/messages",
                           json={"content": "May the tenant keep a cat?"})

    assert response.status_code == 200, response.text
    assert response.json()["answer_form"] == "quoted"
    [_, answer] = client.get(f"/api/v1/conversations/{conversation['id']}").json()["messages"]
    assert "\u201cThe tenant may keep one cat.\u201d" in answer["content"] and answer["answer_form"] == "quoted"


def test_a_form_docchat_does_not_know_is_refused(client, leases):
    response = client.post("/api/v1/rag/query", json={"query": "May the tenant keep a cat?", "form": "poem"})

    assert response.status_code == 422 and "form" in response.text
