"""`docchat bench servers`, small, on the live tier's two servers: figures of both, and the
features each one was found to support."""

from docchat_bench.server_features import Endpoint
from docchat_bench.servers import run_servers_bench


def test_the_servers_bench_measures_both_servers_and_finds_what_each_supports(live_llm, live_llamacpp, capsys):
    endpoints = [Endpoint("vLLM", live_llm.url, live_llm.api_key),
                 Endpoint("llama.cpp", live_llamacpp.url, live_llamacpp.api_key)]

    report = run_servers_bench(runs=1, answer_tokens=8, endpoints=endpoints, say=lambda line: None)

    for server in ("vLLM", "llama.cpp"):
        for figures in report["figures"][server].values():
            assert figures["ttft_p50_s"] > 0 and 1 <= figures["completion_tokens_p50"] <= 8
    vllm, llamacpp = report["features"]["vLLM"], report["features"]["llama.cpp"]
    assert vllm["window in /v1/models"] == "8192" and llamacpp["window in /v1/models"] == "not reported"
    assert vllm["/health"] == "yes (200)" and llamacpp["/health"] == "no (404)"
    assert llamacpp["repetition_penalty"] == "accepted, no effect" and llamacpp["repeat_penalty (llama.cpp's name)"] == "taken"
    # Each takes the citation pattern the way docchat sends it to that kind, and not the other's way.
    assert vllm["citation pattern as structured_outputs (vLLM)"] == "taken"
    assert llamacpp["citation pattern as a grammar (llama.cpp)"] == "taken"
    assert "taken" not in (vllm["citation pattern as a grammar (llama.cpp)"],
                           llamacpp["citation pattern as structured_outputs (vLLM)"])
    assert vllm["/v1 without the key"] == llamacpp["/v1 without the key"] == "no (401)"
    assert "TTFT p50" in capsys.readouterr().out
