"""The OpenAI-compatible endpoints, through the official `openai` client (here over the app in
process, with a scripted LLM; tests/live/test_live_api.py does it against vLLM)."""

from __future__ import annotations

import openai
import pytest

from tests.api.conftest import stored


def test_the_client_lists_docchat_as_its_one_model(docchat):
    assert [model.id for model in docchat.models.list()] == ["docchat"]


def test_a_completion_answers_from_the_documents_with_citations(docchat, gateway, trust, api_services):
    gateway.enqueue(["GBP 40,000 a year [1]."])
    before = stored(api_services)

    completion = docchat.chat.completions.create(model="docchat", messages=[
        {"role": "system", "content": "Answer in one sentence."},
        {"role": "user", "content": "What fees does the Trustee charge?"},
        {"role": "assistant", "content": "An annual fee."},
        {"role": "user", "content": "How much is it?"},
    ])

    assert completion.choices[0].message.content == "GBP 40,000 a year [1]."
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage.prompt_tokens > 0
    cited = completion.model_extra["docchat"]["citations"]
    assert cited[0]["document"] == "harbour-trust.md" and cited[0]["section"] == "Trustee fees"
    # The system message became the instructions after docchat's own system prompt; the earlier
    # turns are the history, and the last question is asked.
    sent = gateway.requests[-1][0]
    assert sent[0]["role"] == "system" and sent[0]["content"].endswith("\n\nAnswer in one sentence.")
    assert [m["content"] for m in sent if m["role"] == "assistant"] == ["An annual fee."]
    assert sent[-1]["content"].endswith("How much is it?")
    assert stored(api_services) == before


def test_a_streamed_completion_ends_with_the_citations_and_its_finish_reason(docchat, gateway, trust):
    gateway.enqueue(["Interest is paid ", "on the Payment Date."], finish_reason="length")

    chunks = list(docchat.chat.completions.create(
        model="docchat", stream=True, stream_options={"include_usage": True},
        messages=[{"role": "user", "content": "When is interest on the Notes paid?"}]))

    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Interest is paid on the Payment Date."
    last = [c for c in chunks if c.choices and c.choices[0].finish_reason][-1]
    assert last.choices[0].finish_reason == "length"
    assert last.model_extra["docchat"]["citations"][0]["section"] == "Payment Date"
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 2


def test_another_model_name_is_not_found_as_openai_says_it(docchat):
    with pytest.raises(openai.NotFoundError) as refused:
        docchat.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "Hello"}])

    assert refused.value.code == "model_not_found"


def test_a_conversation_that_does_not_end_with_a_question_is_refused(docchat):
    with pytest.raises(openai.BadRequestError) as refused:
        docchat.chat.completions.create(model="docchat", messages=[{"role": "user", "content": "Hello"},
                                                                   {"role": "assistant", "content": "Hi."}])

    assert refused.value.body["message"] == "the last message must be the user's question"


def test_a_failure_mid_stream_reaches_the_client_as_an_error(docchat, gateway):
    from docchat.errors import LLMTimeout

    gateway.enqueue(["The "], failure=LLMTimeout("the LLM server sent nothing for 60 s while waiting for the next token"))

    with pytest.raises(openai.APIError, match="sent nothing for 60 s"):
        list(docchat.chat.completions.create(model="docchat", stream=True,
                                             messages=[{"role": "user", "content": "When is the Payment Date?"}]))


def test_the_openai_compatible_answer_carries_the_judgement_in_its_docchat_extra(docchat, gateway, trust):
    gateway.enqueue(["GBP 40,000 a year [1]."])

    completion = docchat.chat.completions.create(model="docchat", messages=[
        {"role": "user", "content": "What annual fee is the Trustee paid?"}])

    assert completion.model_extra["docchat"]["evidence"]["judgement"] == "found"


def test_a_completion_says_which_passages_it_cited_and_marks_a_number_none_of_them_holds(docchat, gateway, trust):
    given = docchat.chat.completions.create(model="docchat", messages=[
        {"role": "user", "content": "What annual fee is the Trustee paid?"}]).model_extra["docchat"]["citations"]
    fees = next(c["n"] for c in given if c["section"] == "Trustee fees")
    gateway.enqueue([f"The Trustee is paid an annual fee of GBP 45,000 [{fees}]."])

    extension = docchat.chat.completions.create(model="docchat", messages=[
        {"role": "user", "content": "What annual fee is the Trustee paid?"}]).model_extra["docchat"]

    assert [c["n"] for c in extension["citations"]] == [c["n"] for c in given]
    assert [c["n"] for c in extension["cited"]] == [fees]
    [sentence] = extension["citation_check"]["sentences"]
    assert sentence["flagged"] and sentence["note"] == "45,000 not found in the cited passages"


def test_a_question_the_documents_do_not_hold_gets_docchat_s_reply_unless_the_model_s_words_are_asked(docchat, gateway,
                                                                                                      trust):
    question = [{"role": "user", "content": "Who won the football World Cup in 1998?"}]

    reply = docchat.chat.completions.create(model="docchat", messages=question)
    assert reply.choices[0].message.content.startswith("I could not find this in your documents. The nearest passages")
    assert gateway.requests == []

    gateway.enqueue(["Based on the provided data, France won it."])
    own = docchat.chat.completions.create(model="docchat", messages=question, extra_body={"docchat": {"form": "free"}})
    assert own.choices[0].message.content == "France won it."
    assert own.model_extra["docchat"]["evidence"]["judgement"] == "not found"
