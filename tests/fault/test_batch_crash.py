"""A batch ingestion killed with SIGKILL while a group of files embeds: at the next start, the
files reported before stay whole and nothing of the group under way is left."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from docchat.bootstrap import build_services
from tests.fault.test_crash_recovery import DIES_ON_SECOND_EMBEDDING, ROOT

# Two files a group: the first group goes in whole, the second dies on its first embedding.
INGESTING = DIES_ON_SECOND_EMBEDDING + """
from docchat.services import ingestion
from docchat.services.ingestion import FileToAdd

ingestion.GROUP_FILES = 2
services = build_services(contact_llm=False, embedder=DiesOnSecondCall())
files = [FileToAdd(Path(p).name, Path(p).read_bytes) for p in sys.argv[1:]]
for outcome in services.ingestion.add_many(files):
    print(outcome.name, flush=True)
"""
NOTES = {
    "lease.md": "# Rent review\n\nThe rent is reviewed every fifth year against open market rents.\n",
    "bread.md": "# Bread\n\nKnead the dough for ten minutes, then leave it to rise until doubled.\n",
    "whitby.txt": "The house in Whitby is let on a twelve-month assured shorthold tenancy.\n",
    "custard.md": "# Custard\n\nWarm the milk with a vanilla pod and whisk it into the yolks.\n",
}


def test_a_batch_cut_off_mid_group_keeps_the_files_reported_and_leaves_nothing_of_the_rest(data_dir, tmp_path):
    paths = []
    for name, text in NOTES.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))

    ingest = subprocess.run([sys.executable, "-c", INGESTING, *paths], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert ingest.returncode == -signal.SIGKILL and ingest.stdout == "lease.md\nbread.md\n", ingest.stderr[-2000:]
    assert len(list((data_dir / "documents").glob("*/*"))) == 4  # the crash did leave the second group's files

    services = build_services(contact_llm=False)
    index = services.index.open()

    kept = services.documents.list()
    assert sorted(d.name for d in kept) == ["bread.md", "lease.md"]
    assert index.count() == sum(d.chunks for d in kept)
    assert {document_id for _, document_id, _ in index.vectors()} == {d.id for d in kept}
    assert sorted(p.name for p in (data_dir / "documents").glob("*/*")) == sorted(Path(d.path).name for d in kept)
    # A file cut off goes in as a first time.
    assert not services.ingestion.add("whitby.txt", (tmp_path / "whitby.txt").read_bytes()).already_present
