"""docchat pointed at each kind of model server, answered by recorded responses of its documented
endpoints (Ollama and LM Studio cannot run here; llama.cpp's and vLLM's shapes are recorded too):
it says which server answers, the window and whose figure that is, the models served, whether
prefix-cache figures exist, and sends only the sampling options that server takes."""

from __future__ import annotations

import pytest

from docchat.bootstrap import build_services, gateway_for
from docchat.context.citing import citing
from docchat.errors import InvalidInput
from docchat.memory.tokens import render_chatml
from docchat.services.llm import SAMPLE

from tests.fault.recorded_server import RecordedServer

pytestmark = pytest.mark.timeout(60)

QUESTION = "What is the Determination Date in the 2024 trust agreement?"


@pytest.fixture
def status_of(settings_for):
    """The LLM's status as the Settings page and `docchat doctor` show it, for a recorded server."""

    def status(server: RecordedServer, **settings):
        return build_services(settings_for(server.url + "/v1", **settings)).llm.status()

    return status


@pytest.mark.parametrize(("recording", "server", "model", "window", "source"), [
    ("vllm", "vLLM", "Qwen/Qwen3-4B-Instruct-2507", 32_768, "reported by the server"),
    ("llama_cpp", "llama.cpp server", "Qwen3-4B-Instruct-2507-Q4_K_M.gguf", 8_192, "reported by the server"),
    ("lm_studio", "LM Studio", "qwen/qwen3-4b-2507", 16_384, "reported by the server"),
    # Its --n_ctx default, which it does not report.
    ("llama_cpp_python", "llama-cpp-python server", "smollm2-135m-instruct", 2_048, "assumed"),
    # No num_ctx and nothing loaded: Ollama's own default, which it does not report either.
    ("ollama", "Ollama", "qwen3:4b", 4_096, "assumed"),
    ("openai_compatible", "OpenAI-compatible server", "gpt-oss-20b", 4_096, "assumed"),
])
def test_each_server_is_recognised_with_its_model_and_window(status_of, recording, server, model, window, source):
    with RecordedServer(recording) as recorded:
        status = status_of(recorded)

    assert status.healthy, status.error
    assert (status.server, status.model, status.max_model_len, status.window_source) == (server, model, window,
                                                                                         source)


def test_a_server_without_a_health_route_is_healthy_when_it_lists_its_models(status_of):
    with RecordedServer("ollama") as ollama:
        status = status_of(ollama)

    assert "GET /health" not in ollama.asked  # Ollama has no such route
    assert status.healthy and status.error is None


def test_the_window_the_user_sets_is_used_where_the_server_does_not_say_one(status_of):
    with RecordedServer("llama_cpp_python") as server:
        status = status_of(server, llm_window=8_192)

    assert (status.max_model_len, status.window_source) == (8_192, "your setting")


def test_a_window_set_larger_than_the_server_says_gives_way_to_the_servers(status_of):
    with RecordedServer("vllm") as server:
        larger = status_of(server, llm_window=65_536)
        smaller = status_of(server, llm_window=16_384)

    assert (larger.max_model_len, larger.window_source) == (32_768, "reported by the server")
    assert (smaller.max_model_len, smaller.window_source) == (16_384, "your setting")


def test_ollama_reports_the_num_ctx_set_for_the_model(status_of):
    with RecordedServer("ollama") as ollama:
        shown = ollama.routes["POST /api/show qwen3:4b"]
        ollama.routes["POST /api/show qwen3:4b"] = {**shown, "parameters": shown["parameters"] +
                                                    "\nnum_ctx                        32768"}
        status = status_of(ollama)

    assert (status.max_model_len, status.window_source) == (32_768, "reported by the server")


def test_ollama_reports_the_context_a_loaded_model_was_given(status_of):
    with RecordedServer("ollama") as ollama:
        ollama.routes["GET /api/ps"] = {"models": [{"name": "qwen3:4b", "model": "qwen3:4b", "size": 3700000000,
                                                    "context_length": 16_384}]}
        status = status_of(ollama)

    assert (status.max_model_len, status.window_source) == (16_384, "reported by the server")


def test_the_models_a_server_serves_are_listed_and_the_chosen_one_answers(status_of):
    with RecordedServer("ollama") as ollama:
        status = status_of(ollama, llm_model="llama3.2:latest")

    assert status.models == ("qwen3:4b", "llama3.2:latest")
    assert status.model == "llama3.2:latest"


def test_lm_studio_offers_its_chat_models_not_its_embedding_model(status_of):
    with RecordedServer("lm_studio") as lm_studio:
        status = status_of(lm_studio, llm_model="meta-llama-3.1-8b-instruct")

    assert status.models == ("qwen/qwen3-4b-2507", "meta-llama-3.1-8b-instruct")
    # Not loaded: LM Studio says only the most the model takes, so docchat assumes a small window.
    assert (status.model, status.max_model_len, status.window_source) == ("meta-llama-3.1-8b-instruct", 4_096,
                                                                          "assumed")


def test_a_model_the_server_does_not_serve_is_named_with_those_it_does(status_of):
    with RecordedServer("ollama") as ollama:
        status = status_of(ollama, llm_model="mistral:7b")

    assert "does not serve mistral:7b (it serves qwen3:4b, llama3.2:latest)" in status.error


def test_prefix_cache_figures_are_not_reported_where_the_server_has_none(status_of):
    with RecordedServer("vllm") as vllm, RecordedServer("ollama") as ollama:
        from_vllm, from_ollama = status_of(vllm), status_of(ollama)

    assert from_vllm.prefix_cache_reported and (from_vllm.prefix_cache_hits, from_vllm.prefix_cache_queries) == (
        3000.0, 4000.0)
    assert not from_ollama.prefix_cache_reported and from_ollama.prefix_cache_queries is None
    assert "GET /metrics" not in ollama.asked


@pytest.mark.parametrize(("recording", "sent", "left_out"), [
    ("vllm", {"repetition_penalty": 1.1}, {"repeat_penalty"}),
    ("llama_cpp_python", {"repeat_penalty": 1.1}, {"repetition_penalty"}),
    ("ollama", {}, {"repetition_penalty", "repeat_penalty", "top_k"}),
    ("openai_compatible", {}, {"repetition_penalty", "repeat_penalty", "top_k"}),
])
def test_only_the_sampling_options_a_server_takes_are_sent(settings_for, recording, sent, left_out):
    with RecordedServer(recording) as server:
        services = build_services(settings_for(server.url + "/v1"))
        answer = services.chat.answer(None, QUESTION)
        text = answer.text()

    assert text == "The Determination Date is the 15th."
    (body,) = server.completions
    assert {name: body[name] for name in sent} == sent
    assert not left_out & set(body)


@pytest.mark.parametrize(("recording", "field", "sent"), [
    ("vllm", "structured_outputs", {"regex": citing([1, 2]).regex}),
    ("llama_cpp", "grammar", citing([1, 2]).grammar),
    ("llama_cpp_python", "grammar", citing([1, 2]).grammar),
    ("ollama", None, None),
    ("lm_studio", None, None),
    ("openai_compatible", None, None),
])
def test_the_citation_pattern_is_sent_only_to_a_server_that_takes_one(settings_for, recording, field, sent):
    with RecordedServer(recording) as server:
        gateway = gateway_for(settings_for(server.url + "/v1"))
        takes = gateway.info().constrains
        text = "".join(gateway.stream([{"role": "user", "content": QUESTION}], max_tokens=64,
                                      constraint=citing([1, 2])))

    assert text == "The Determination Date is the 15th."
    (body,) = server.completions
    assert takes is (field is not None)
    assert {name: body[name] for name in ("structured_outputs", "grammar") if name in body} == \
        ({field: sent} if field else {})


def test_tokens_are_checked_against_the_count_of_vllm_and_of_llama_server(status_of):
    words = sum(len(render_chatml(m["role"], m["content"]).split()) for m in SAMPLE) + 1
    with RecordedServer("vllm") as vllm, RecordedServer("llama_cpp") as llama_server:
        from_vllm, from_llama_server = status_of(vllm), status_of(llama_server)

    # The recorded count of the sample chat; the stand-in tokenizer's count of it as the
    # model's template (ChatML) writes it.
    assert "server 61 tokens" in from_vllm.calibration
    assert f"server {words} tokens" in from_llama_server.calibration


def test_a_model_docchat_has_no_tokenizer_of_is_counted_by_the_server(status_of):
    with RecordedServer("llama_cpp_python") as server:
        status = status_of(server)

    # Its counts of each message, less the BOS token it adds to each text, sum to its count of
    # the whole chat: exact, and said so.
    assert status.counter == "server-tokenize:llama-cpp-python:smollm2-135m-instruct"
    assert status.calibration.startswith("matches server") and status.counter_exact


def test_a_server_that_cannot_count_tokens_says_so(status_of):
    with RecordedServer("ollama") as ollama:
        status = status_of(ollama)

    assert status.calibration == "not checked: Ollama offers no tokenize endpoint"


def test_an_answers_budget_says_its_window_was_assumed(settings_for):
    with RecordedServer("llama_cpp_python") as server:
        answer = build_services(settings_for(server.url + "/v1")).chat.answer(None, QUESTION)
        answer.text()

    assert (answer.budget.max_model_len, answer.budget.window_source) == (2_048, "assumed")
    assert answer.budget.prompt + answer.budget.answer_reserve <= 2_048


def test_checking_an_address_names_the_server_its_model_and_whose_window_it_is(settings_for, fake_llm):
    services = build_services(settings_for(fake_llm.url + "/v1"))
    with RecordedServer("lm_studio") as lm_studio, RecordedServer("llama_cpp_python") as llama_cpp_python:
        loaded = services.llm.check(lm_studio.url + "/v1")
        unsaid = services.llm.check(llama_cpp_python.url + "/v1")

    assert loaded == (f"LM Studio at {lm_studio.url}/v1 serves qwen/qwen3-4b-2507, with a window of 16,384 tokens "
                      "(reported by the server)")
    assert unsaid == (f"llama-cpp-python server at {llama_cpp_python.url}/v1 serves smollm2-135m-instruct, with a "
                      "window of 2,048 tokens (assumed: llama-cpp-python does not report its --n_ctx)")


def test_a_server_that_cannot_go_on_with_a_cut_answer_is_not_asked_to(settings_for):
    with RecordedServer("llama_cpp_python") as server:
        server.finish_reason = "length"
        services = build_services(settings_for(server.url + "/v1"))
        answer = services.chat.answer(None, QUESTION)
        answer.text()
        with pytest.raises(InvalidInput) as refused:
            services.chat.continue_answer(answer.conversation_id)

    assert str(refused.value) == ("llama-cpp-python server starts a new answer instead of going on with this one: "
                                  "ask for the rest instead")
    assert len(server.completions) == 1
    assert services.messages.history(answer.conversation_id)[-1].content == "The Determination Date is the 15th."


def test_llama_server_without_n_ctx_in_props_is_read_from_its_model_listing(status_of):
    with RecordedServer("llama_cpp") as llama_server:
        llama_server.routes["GET /props"] = {"default_generation_settings": {"params": {"top_k": 40}}, "total_slots": 1}
        listing = llama_server.routes["GET /v1/models"]
        [model] = listing["data"]
        llama_server.routes["GET /v1/models"] = {**listing, "data": [{**model, "meta": {**model["meta"], "n_ctx": 12_288}}]}
        status = status_of(llama_server)

    assert (status.server, status.max_model_len, status.window_source) == ("llama.cpp server", 12_288,
                                                                           "reported by the server")


def test_a_window_set_beyond_what_the_model_takes_is_held_to_the_models_length(status_of):
    with RecordedServer("lm_studio") as lm_studio:
        status = status_of(lm_studio, llm_model="meta-llama-3.1-8b-instruct", llm_window=500_000)

    assert (status.max_model_len, status.window_source) == (131_072, "your setting")
