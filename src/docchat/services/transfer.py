"""Export and import use cases. Import is all-or-nothing and idempotent by conversation id."""

from __future__ import annotations

import io
import uuid
import zipfile
import zlib
from dataclasses import replace
from typing import Any

from docchat import __version__
from docchat.domain import ImportReport, utcnow
from docchat.errors import InvalidExport
from docchat.exchange import ImportedConversation, to_document, to_json, to_markdown
from docchat.exchange.foreign import parse_export
from docchat.ports import UnitOfWorkFactory
from docchat.services.conversation_log import ConversationLog, required
from docchat.domain.titles import MAX_TITLE
from docchat.text import one_line
from docchat.zip_entries import CountedReader, ZipRefused, checked_entries

# Larger files are refused before parsing: an export of a 262K-token conversation is ~2 MB.
MAX_IMPORT_BYTES = 512 * 1024 * 1024
# A zip's entries are counted as they unpack: each within the first cap, all within the import's.
MAX_ZIP_ENTRY_BYTES = 256 * 1024 * 1024
# An export of every conversation holds one entry each.
MAX_ZIP_ENTRIES = 100_000


class TransferService:
    def __init__(self, uow: UnitOfWorkFactory, log: ConversationLog):
        self._uow = uow
        self._log = log

    def export_json(self, conversation_id: str) -> str:
        return to_json(self._document(conversation_id))

    def export_markdown(self, conversation_id: str) -> str:
        with self._uow() as uow:
            conversation = required(uow, conversation_id)
            return to_markdown(conversation, uow.conversations.messages(conversation_id))

    def export_all_zip(self) -> bytes:
        """Every conversation as `<id>.json` in one zip."""
        with self._uow() as uow:
            ids = [c.id for c in uow.conversations.list_conversations()]
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for conversation_id in ids:
                archive.writestr(f"{conversation_id}.json", self.export_json(conversation_id))
        return buffer.getvalue()

    def import_bytes(self, raw: bytes, *, name: str = "file", as_copy: bool = False) -> list[ImportReport]:
        """Imports one JSON export or a zip of them, or a ChatGPT or Open WebUI export of many
        conversations. Every file is checked before anything is written."""
        name = one_line(name) or "file"  # it starts every message about the file
        if len(raw) > MAX_IMPORT_BYTES:
            raise InvalidExport(f"{name}: too large to be a docchat export ({len(raw)} bytes)")
        return self.import_conversations([document for source, content in _entries(raw, name)
                                          for document in parse_export(content, source=source)], as_copy=as_copy)

    def import_conversations(self, documents: list[ImportedConversation], *,
                             as_copy: bool = False) -> list[ImportReport]:
        """Conversations as read from their files (or as docchat wrote them: a benchmark stores
        answers with their figures and passages so), all or nothing; one already here is left
        as it is, or imported anew as a copy."""
        return self._log.import_conversations([_as_copy(document) if as_copy else document for document in documents])

    def _document(self, conversation_id: str) -> dict[str, Any]:
        with self._uow() as uow:
            conversation = required(uow, conversation_id)
            return to_document(
                conversation,
                uow.conversations.messages(conversation_id),
                uow.conversations.summaries(conversation_id),
                app_version=__version__,
                exported_at=utcnow(),
            )


def _entries(raw: bytes, name: str) -> list[tuple[str, bytes]]:
    """(source, bytes) of each export: the file itself, or each .json entry of a zip, read in
    counted pieces within the caps (see docchat.zip_entries)."""
    if not zipfile.is_zipfile(io.BytesIO(raw)):
        return [(name, raw)]
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            members = [info for info in checked_entries(archive, max_entries=MAX_ZIP_ENTRIES)
                       if not info.is_dir() and info.filename.endswith(".json")]
            reader = CountedReader(archive, total_bytes=MAX_IMPORT_BYTES)
            entries = [(f"{name}:{one_line(info.filename)}", reader.read(info, max_bytes=MAX_ZIP_ENTRY_BYTES))
                       for info in members]
    except ZipRefused as refused:
        raise InvalidExport(f"{name}: refused: {refused}; nothing was imported") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as error:
        # RuntimeError: an encrypted entry; NotImplementedError: a compression zipfile lacks.
        raise InvalidExport(f"{name}: damaged zip: {one_line(str(error))}") from None
    if not entries:
        raise InvalidExport(f"{name}: the zip holds no .json exports")
    return entries


def _as_copy(document: ImportedConversation) -> ImportedConversation:
    new_id = str(uuid.uuid4())
    title = f"{document.conversation.title} (copy)"[:MAX_TITLE]
    # Versions keep naming their first, replies their parent; None (there is none) finds none.
    ids: dict[str | None, str] = {m.id: str(uuid.uuid4()) for m in document.messages}
    return ImportedConversation(
        conversation=replace(document.conversation, id=new_id, title=title),
        messages=[replace(m, id=ids[m.id], conversation_id=new_id, version_of=ids.get(m.version_of),
                          parent_id=ids.get(m.parent_id)) for m in document.messages],
        summaries=[replace(s, id=str(uuid.uuid4()), conversation_id=new_id) for s in document.summaries],
    )
