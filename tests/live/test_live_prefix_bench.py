"""`docchat bench prefix`, small, on the live vLLM server: it runs through docchat's own answer
pipeline (its stand-in library keeps up with the Retriever port; it once failed on a method the
port had grown), and docchat's layout is served from the prefix cache where the baseline's is not."""

from docchat_bench.prefix import run_prefix_bench


def test_the_prefix_bench_runs_and_docchat_s_layout_is_served_from_the_cache(live_llm, capsys):
    report = run_prefix_bench(turns=4, as_json=True, llm_url=live_llm.url, api_key=live_llm.api_key)

    assert report["docchat_hit_ratio"] > report["baseline_hit_ratio"]
    assert report["docchat_ttft_ms"] > 0 and report["baseline_ttft_ms"] > 0
    assert '"docchat_hit_ratio"' in capsys.readouterr().out
