"""`docchat bench answers` at a small size, against the scripted stand-in that writes numbers no
source holds: docchat's path states every computed figure and keeps the stand-in's numbers out
of table answers; today's path (the model's words) states none of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_the_answers_bench_prints_both_paths_and_docchat_states_every_figure(tmp_path):
    docchat = Path(sys.executable).with_name("docchat")
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(tmp_path / "data")}
    printed = subprocess.run([str(docchat), "bench", "answers", "--questions", "6", "--json"], env=env,
                             capture_output=True, text=True, timeout=300, check=True).stdout

    report = json.loads(printed)
    today, docchat_path = report["paths"]["today (the model's words)"], report["paths"]["docchat"]
    assert report["questions"] == 6 and today["table_questions"] == docchat_path["table_questions"] == 3
    assert docchat_path["computed_right"] == 1.0
    assert (docchat_path["figure_in_text"], docchat_path["contradicting_number"]) == (1.0, 0.0)
    assert docchat_path["number_not_in_sources"] == 0.0
    assert (today["figure_in_text"], today["contradicting_number"], today["number_not_in_sources"]) == (0.0, 1.0, 1.0)
    assert today["flagged"] == 1.0
