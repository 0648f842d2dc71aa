"""The crash campaign's migrate stage, small: `docchat bench crash --migrate-only` kills upgrades
of a database at schema 0008 with SIGKILL, and every next start finds it as it was or upgraded,
never in between, then upgrades it. (The README's figures come from the 100,000-chunk run.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

KILLS = 6


def test_upgrades_killed_at_random_moments_leave_the_database_as_it_was_or_upgraded(tmp_path):
    environment = {**os.environ, "DOCCHAT_DATA_DIR": str(tmp_path / "unused")}
    environment.pop("DOCCHAT_DATABASE_URL", None)
    run = subprocess.run([sys.executable, "-m", "docchat.cli", "bench", "crash", "--migrate-only", "--migrate-kills",
                          str(KILLS), "--migrate-chunks", "4000", "--seed", "11", "--json"],
                         capture_output=True, text=True, env=environment, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:] + run.stdout[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])["migrate"]
    print(json.dumps(result, indent=1))

    assert result["kills"] == KILLS
    assert result["found_as_it_was"] + result["found_upgraded"] == KILLS + result["ended_before_the_kill"]
    assert result["found_in_between"] == 0 and result["next_start_failed"] == 0, result["problems"]
    assert result["automatic_backups_kept"] == 3
    assert not (tmp_path / "unused").exists()  # the campaign works in a data dir of its own
