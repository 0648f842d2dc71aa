"""Followed folders over fakes of their ports: which files a sync opens, parses and removes."""

from __future__ import annotations

import pytest

from docchat.errors import InvalidInput, NotFound
from docchat.services.conversation_log import ConversationLog
from docchat.services.conversations import ConversationService
from docchat.services.folders import FolderService
from docchat.services.library import build_library

from tests.unit.fakes import (FakeDisk, FakeEmbedder, FakeFiles, FakeIndex, FakeParser, FakeRenderer, FakeUnitOfWork,
                              WordCounter)

NOTES = "/home/ada/Notes"
LATER = 1_800_000_000_000_000_000


class Followed:
    def __init__(self, *refused: str):
        self.uow, self.disk, self.parser = FakeUnitOfWork(), FakeDisk(), FakeParser(*refused)
        self.index_asked = 0
        self.library = build_library(self.uow, FakeIndex, FakeEmbedder(), WordCounter(), parser=self.parser,
                                     files=FakeFiles(), renderer=FakeRenderer(), max_bytes=1024 * 1024)
        open_index = self.library.index.open

        def counted():
            self.index_asked += 1
            return open_index()

        self.library.index.open = counted  # what FolderService asks for before it writes
        self.service = FolderService(self.uow, self.library, ConversationService(self.uow, WordCounter(), ConversationLog(self.uow, WordCounter())),
                                     self.disk)
        self.disk.write(NOTES, "kiln.md", b"The kiln fires at 1,280 degrees.", 1)
        self.disk.write(NOTES, "glazes.txt", b"Celadon needs a reduction firing.", 1)

    def names(self) -> list[str]:
        return sorted(d.name for d in self.library.documents.list())


def test_a_sync_with_nothing_changed_opens_no_file_and_not_the_index():
    followed = Followed()
    followed.service.add(NOTES)
    followed.disk.opened.clear()
    asked = followed.index_asked

    report = followed.service.sync()

    assert (report.counts.unchanged, report.counts.added) == (2, 0)
    assert followed.disk.opened == [] and followed.index_asked == asked


def test_a_touched_file_is_hashed_but_not_parsed_again():
    followed = Followed()
    followed.service.add(NOTES)
    followed.parser.parsed.clear()
    followed.disk.write(NOTES, "kiln.md", b"The kiln fires at 1,280 degrees.", LATER)

    report = followed.service.sync()

    assert report.counts.unchanged == 2
    assert followed.disk.opened[-1] == f"{NOTES}/kiln.md" and followed.parser.parsed == []


def test_a_changed_file_replaces_its_document():
    followed = Followed()
    followed.service.add(NOTES)
    [before] = [d.id for d in followed.library.documents.list() if d.name == "kiln.md"]
    followed.disk.write(NOTES, "kiln.md", b"The kiln fires at 1,300 degrees now.", LATER)

    report = followed.service.sync()

    assert report.counts.changed == 1
    [after] = [d for d in followed.library.documents.list() if d.name == "kiln.md"]
    assert after.id != before and followed.uow.documents.get(before) is None


def test_a_refused_file_is_parsed_again_only_once_its_content_changes():
    followed = Followed("broken.md")
    followed.disk.write(NOTES, "broken.md", b"half a note", 1)
    assert followed.service.add(NOTES).counts.refused == 1
    followed.parser.parsed.clear()

    followed.disk.write(NOTES, "broken.md", b"half a note", LATER)  # touched
    assert followed.service.sync().counts.refused == 1
    assert followed.parser.parsed == []

    followed.disk.write(NOTES, "broken.md", b"half a note, and the other half", LATER + 1)
    assert followed.service.sync().counts.refused == 1
    assert followed.parser.parsed == ["broken.md"]


def test_files_of_kinds_the_library_does_not_read_are_not_listed():
    followed = Followed()
    followed.disk.write(NOTES, "wheel.heic", b"\x00\x00\x00\x18ftypheic a photo", 1)

    followed.service.add(NOTES)

    [state] = followed.service.list()
    assert state.files_by_status == {"ready": 2} and state.problems == ()


def test_bad_paths_change_nothing():
    followed = Followed()
    with pytest.raises(InvalidInput, match="is not a folder"):
        followed.service.add("/home/ada/Notes/kiln.md")
    with pytest.raises(NotFound, match="is not followed"):
        followed.service.remove(NOTES)
    followed.service.add(NOTES)
    with pytest.raises(InvalidInput, match="is followed already"):
        followed.service.add(NOTES + "/")
    assert len(followed.service.list()) == 1 and followed.names() == ["glazes.txt", "kiln.md"]
