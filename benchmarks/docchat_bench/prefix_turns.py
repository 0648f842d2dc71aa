"""The prefix bench turn by turn, for the plot of the cache's hit ratio per turn.

The same scripted conversation as `docchat bench prefix`, against the live server, in both
layouts; each answer request's `cached_tokens` over its `prompt_tokens`, by turn. The first
turn of a case has nothing cached but the system prompt; docchat's layout keeps each later
prompt an extension of the one before, the baseline's changes its system prompt every turn.
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path

from docchat_bench.prefix import ANSWER_TOKENS, TURNS, _baseline_run, _docchat_run, _summary, script


def run_prefix_turns(*, turns: int = TURNS) -> dict:
    from docchat.bootstrap import build_services, gateway_for
    from docchat.llm.server_key import llm_key
    from docchat.config import Settings

    case = f"Case {uuid.uuid4().hex[:8]}. "
    with tempfile.TemporaryDirectory(prefix="docchat-bench-prefix-") as tmp:
        settings = Settings(data_dir=Path(tmp), max_tokens=ANSWER_TOKENS, context_programs=False,
                            llm_api_key=llm_key(Settings())())
        gateway = gateway_for(settings)
        services = build_services(settings, gateway=gateway)
        info = gateway.info()
        baseline = _baseline_run(gateway, settings.system_prompt, script(turns, case=case + "B. "))
        ours = _docchat_run(services, script(turns, case=case))
    return {
        "model": info.model,
        "docchat_hit_ratio": round(_summary(ours)[0], 4),
        "baseline_hit_ratio": round(_summary(baseline)[0], 4),
        "turns": [{"turn": n, **_turn("docchat", mine), **_turn("baseline", theirs)}
                  for n, ((_, mine), (_, theirs)) in enumerate(zip(ours, baseline), start=1)],
    }


def _turn(layout: str, usage: dict) -> dict:
    prompted = usage.get("prompt_tokens", 0)
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
    return {f"{layout}_prompt_tokens": prompted, f"{layout}_cached_tokens": cached,
            f"{layout}_hit_ratio": round(cached / prompted, 4) if prompted else 0.0}
