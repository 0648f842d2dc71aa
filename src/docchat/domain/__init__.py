"""Plain data the services hand to the UI, CLI and API, by concept: conversations and their
messages, the figures an answer keeps, documents, and health. Import from here."""

from docchat.domain.conversations import (
    utcnow, Role, Rating, Status, FINISHED, TitleSource, SessionMemory, ConversationSettings, Conversation,
    AnswerFacts, Citation, Message, NO_FACTS, by_number, joint_reading, Summary, Condensed, SearchHit, CleanupReport, ImportReport,
)
from docchat.domain.figures import (
    Budget, MemoryStats,
)
from docchat.domain.documents import (
    content_hash, Section, Attachment, ParsedDocument, DocumentStatus, Document, IngestReport, ChunkRecord, chunk_heading, Retrieved, SourceView,
    DocumentUse, Scope,
)
from docchat.domain.folders import (
    FileStatus, SyncCounts, Folder, FolderFile, SeenFile, Unreadable, FileProblem, SyncReport, FolderState,
)
from docchat.domain.grounding import (
    Judgement, EvidenceStrength, answer_note, AnswerForm, form_line, Grounding, SentenceCheck, marks_in,
)
from docchat.domain.health import (
    StoreHealth, LLMStatus, LibraryHealth, IndexCheck, IndexRepair,
)

# What a checked importer may take from here (mypy's strict mode re-exports only what is listed).
__all__ = [
    "utcnow", "Role", "Rating", "Status", "FINISHED", "TitleSource", "SessionMemory", "ConversationSettings",
    "Conversation", "AnswerFacts", "Citation", "Message", "NO_FACTS", "by_number", "joint_reading", "Summary", "Condensed", "SearchHit",
    "CleanupReport",
    "ImportReport",
    "Budget", "MemoryStats",
    "content_hash", "Section", "Attachment", "ParsedDocument", "DocumentStatus", "Document", "IngestReport", "ChunkRecord", "chunk_heading",
    "Retrieved", "SourceView", "DocumentUse", "Scope",
    "FileStatus", "SyncCounts", "Folder", "FolderFile", "SeenFile", "Unreadable", "FileProblem", "SyncReport",
    "FolderState",
    "Judgement", "EvidenceStrength", "answer_note", "AnswerForm", "form_line", "Grounding", "SentenceCheck", "marks_in",
    "StoreHealth", "LLMStatus", "LibraryHealth", "IndexCheck", "IndexRepair",
]
