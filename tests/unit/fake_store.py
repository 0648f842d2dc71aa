"""The unit of work and its repositories, in memory, for unit tests: conversations, documents
and followed folders in one shared store that records what was written, so tests assert
behaviour. (tests.unit.fakes re-exports them beside the other ports' fakes.)"""

from __future__ import annotations

from dataclasses import replace

from docchat.domain import ChunkRecord, Conversation, Document, DocumentStatus, Folder, FolderFile, Message, SyncCounts
from docchat.ports import MemoryState
class FakeConversations:
    def __init__(self):
        self.conversations: dict[str, Conversation] = {}
        self.marks: dict[str, tuple[int, int]] = {}
        self.messages_by: dict[str, list[Message]] = {}
        self.summaries_by: dict[str, list] = {}
        self.revisions: dict[str, int] = {}

    def add_conversation(self, conversation: Conversation) -> None:
        self.conversations[conversation.id] = conversation
        self.marks[conversation.id] = (1, 1)
        self.messages_by[conversation.id] = []

    def get_conversation(self, conversation_id: str, *, include_deleted: bool = False):
        found = self.conversations.get(conversation_id)
        return replace(found, message_count=self.last_seq(conversation_id)) if found else None

    def is_active(self, conversation_id: str) -> bool:
        return conversation_id in self.conversations

    def list_conversations(self, *, include_deleted: bool = False) -> list[Conversation]:
        """Pinned first, then most recently updated, as the real store orders them."""
        return sorted((c for c in self.conversations.values() if include_deleted or c.deleted_at is None),
                      key=lambda c: (not c.pinned, -c.updated_at.timestamp()))

    def set_title(self, conversation_id: str, title: str, source, *, updated_at=None) -> None:
        found = self.conversations[conversation_id]
        self.conversations[conversation_id] = replace(found, title=title, updated_at=updated_at or found.updated_at,
                                                      settings=replace(found.settings, title_source=source))

    def set_pinned(self, conversation_id: str, pinned: bool) -> None:
        self.conversations[conversation_id] = replace(self.conversations[conversation_id], pinned=pinned)

    def set_deleted(self, conversation_id: str, deleted_at) -> None:
        self.conversations[conversation_id] = replace(self.conversations[conversation_id], deleted_at=deleted_at)

    def save_settings(self, conversation_id: str, settings) -> None:
        self.conversations[conversation_id] = replace(self.conversations[conversation_id], settings=settings)

    def memory_state(self, conversation_id: str, *, after_seq: int):
        if conversation_id not in self.conversations:
            return None
        return MemoryState(self.messages(conversation_id, after_seq=after_seq), *self.marks[conversation_id],
                           self.revisions.get(conversation_id, 0))

    def set_memory_marks(self, conversation_id: str, *, memory_start_seq: int, pruned_before_seq: int) -> None:
        self.marks[conversation_id] = (memory_start_seq, pruned_before_seq)

    def last_seq(self, conversation_id: str) -> int:
        return len(self.messages_by.get(conversation_id, []))

    def append_message(self, message: Message) -> Message:
        shown = [m for m in self.messages_by[message.conversation_id] if m.shown]
        stored = replace(message, seq=self.last_seq(message.conversation_id) + 1,
                         parent_id=message.parent_id or (shown[-1].id if shown else None))
        self.messages_by[message.conversation_id].append(stored)
        return stored

    def get_message(self, message_id: str):
        return next((m for stored in self.messages_by.values() for m in stored if m.id == message_id), None)

    def show_version(self, conversation_id: str, group: str, message_id) -> None:
        self.revisions[conversation_id] = self.revisions.get(conversation_id, 0) + 1
        stored = self.messages_by[conversation_id]
        shown_seq = min((m.seq for m in stored if m.group == group and m.shown), default=None)
        branch, node = set(), message_id
        while node is not None:
            branch.add(node)
            node = max((m for m in stored if m.parent_id == node), key=lambda m: m.seq, default=None)
            node = node.id if node else None
        stored[:] = [replace(m, shown=m.id in branch or (m.shown and m.group != group
                                                          and (shown_seq is None or m.seq < shown_seq)))
                     for m in stored]

    def set_rating(self, message_id: str, rating) -> None:
        for stored in self.messages_by.values():
            stored[:] = [m.with_facts(rating=rating) if m.id == message_id else m for m in stored]

    def settle_message(self, message: Message) -> None:
        stored = self.messages_by[message.conversation_id]
        stored[:] = [replace(message, seq=m.seq) if m.id == message.id else m for m in stored]

    def store_token_counts(self, counts: dict[str, int], tokenizer: str) -> None:
        for conversation_id, stored in self.messages_by.items():
            stored[:] = [replace(m, token_count=counts[m.id], tokenizer=tokenizer) if m.id in counts else m
                         for m in stored]

    def messages(self, conversation_id: str, *, after_seq: int = 0) -> list[Message]:
        return [m for m in self.messages_by[conversation_id] if m.seq > after_seq]

    def latest_shown(self, conversation_id: str, count: int):
        shown = [m for m in self.messages_by[conversation_id] if m.shown]
        return shown[-count:], len(shown)

    def versions(self, conversation_id: str, groups: list[str]):
        return [m for m in self.messages_by[conversation_id] if m.group in groups]

    def add_summary(self, summary) -> None:
        self.summaries_by.setdefault(summary.conversation_id, []).append(summary)

    def latest_summary(self, conversation_id: str, *, before_seq: int | None = None):
        shown = {m.seq for m in self.messages_by.get(conversation_id, []) if m.shown}
        on_branch = [s for s in self.summaries_by.get(conversation_id, [])
                     if s.last_seq in shown and (before_seq is None or s.last_seq < before_seq)]
        return on_branch[-1] if on_branch else None


class FakeDocuments:
    """The document repository in memory: documents in the order added, and their chunks."""

    def __init__(self):
        self.citations: list[dict] = []
        self.documents: dict[str, Document] = {}
        self.chunk_rows: dict[str, list[ChunkRecord]] = {}
        self.links: list[tuple[str, str]] = []  # (mail id, attachment id)

    def add_citations(self, rows: list[dict]) -> None:
        self.citations += rows

    def add(self, document: Document) -> None:
        self.documents[document.id] = document

    def get(self, document_id: str) -> Document | None:
        return self.documents.get(document_id)

    def list(self) -> list[Document]:
        return list(self.documents.values())

    def ready_names(self, document_ids) -> dict[str, str]:
        return {d: self.documents[d].name for d in document_ids
                if d in self.documents and self.documents[d].status is DocumentStatus.READY}

    def ready_in_order(self) -> list[tuple[str, str]]:
        ready = sorted((d for d in self.documents.values() if d.status is DocumentStatus.READY),
                       key=lambda d: (d.added_at, d.id))
        return [(d.id, d.name) for d in ready]

    def any_ready(self) -> bool:
        return any(d.status is DocumentStatus.READY for d in self.documents.values())

    def by_hash(self, content_hash: str) -> Document | None:
        return next((d for d in self.documents.values() if d.content_hash == content_hash), None)

    def attachments_of(self, document_id: str) -> list[Document]:
        return [self.documents[a] for m, a in self.links if m == document_id]

    def mails_holding(self, document_id: str) -> int:
        return sum(a == document_id for _, a in self.links)

    def link_attachments(self, mail_id: str, attachment_ids) -> None:
        self.links += [(mail_id, a) for a in attachment_ids]

    def unlink_attachments(self, mail_id: str) -> list[Document]:
        held = self.attachments_of(mail_id)
        self.links = [(m, a) for m, a in self.links if m != mail_id]
        return [d for d in held if not self.mails_holding(d.id)]

    def add_chunks(self, records: list[ChunkRecord]) -> None:
        for record in records:
            self.chunk_rows.setdefault(record.document_id, []).append(record)

    def chunks_of(self, document_id: str) -> list[ChunkRecord]:
        return sorted(self.chunk_rows.get(document_id, []), key=lambda c: c.position)

    def mark_ready(self, document_id: str, *, chunk_count: int) -> None:
        self.documents[document_id] = replace(self.documents[document_id], status=DocumentStatus.READY,
                                              chunks=chunk_count)

    def mark_removing(self, document_id: str) -> None:
        self.documents[document_id] = replace(self.documents[document_id], status=DocumentStatus.REMOVING)

    def delete(self, document_id: str) -> None:
        self.documents.pop(document_id, None)
        self.chunk_rows.pop(document_id, None)
        self.links = [(m, a) for m, a in self.links if a != document_id]


class FakeFolders:
    """The followed folders' rows in memory."""

    def __init__(self):
        self.folders: dict[str, Folder] = {}
        self.rows: dict[tuple[str, str], FolderFile] = {}

    def add(self, folder: Folder) -> None:
        self.folders[folder.id] = folder

    def by_path(self, path: str) -> Folder | None:
        return next((f for f in self.folders.values() if f.path == path), None)

    def list(self) -> list[Folder]:
        return list(self.folders.values())

    def remove(self, folder_id: str) -> None:
        self.folders.pop(folder_id)
        self.rows = {key: row for key, row in self.rows.items() if key[0] != folder_id}

    def files(self, folder_id: str) -> list[FolderFile]:
        return sorted((r for r in self.rows.values() if r.folder_id == folder_id), key=lambda r: r.relative_path)

    def problems(self, folder_id: str) -> list[FolderFile]:
        return [r for r in self.files(folder_id) if r.status.value in ("refused", "failed")]

    def save_files(self, files) -> None:
        self.rows.update({(f.folder_id, f.relative_path): f for f in files})

    def forget_files(self, folder_id: str, relative_paths) -> None:
        for path in relative_paths:
            self.rows.pop((folder_id, path), None)

    def holders(self, document_id: str) -> int:
        return sum(1 for r in self.rows.values() if r.document_id == document_id)

    def adopted(self, document_id: str) -> bool:
        return any(r.adopted for r in self.rows.values() if r.document_id == document_id)

    def record_sync(self, folder_id: str, at, counts: SyncCounts) -> None:
        self.folders[folder_id] = replace(self.folders[folder_id], last_sync_at=at, last_counts=counts)


class FakeUnitOfWork:
    """One shared in-memory store. Writes land at once (no rollback); `opened` and `commits`
    count the units of work and commits, so a test can tell that nothing was written."""

    def __init__(self):
        self.conversations = FakeConversations()
        self.documents = FakeDocuments()
        self.folders = FakeFolders()
        self.commits = 0
        self.opened = 0

    def __call__(self, *, write: bool = False) -> "FakeUnitOfWork":
        self.opened += 1
        return self

    def __enter__(self) -> "FakeUnitOfWork":
        return self

    def __exit__(self, *exc) -> None:
        pass

    def commit(self) -> None:
        self.commits += 1

