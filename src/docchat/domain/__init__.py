"""Plain data the services hand to the UI, CLI and API, by concept: conversations and their
messages, the figures an answer keeps, documents, and health. Import from here."""

from docchat.domain.conversations import (  # noqa: F401
    utcnow, Role, Rating, Status, FINISHED, TitleSource, SessionMemory, ConversationSettings, Conversation,
    Citation, Message, joint_reading, Summary, SearchHit, CleanupReport, ImportReport,
)
from docchat.domain.figures import (  # noqa: F401
    Budget, MemoryStats,
)
from docchat.domain.documents import (  # noqa: F401
    Section, ParsedDocument, DocumentStatus, Document, IngestReport, ChunkRecord, Retrieved, SourceView, DocumentUse, Scope,
)
from docchat.domain.health import (  # noqa: F401
    StoreHealth, LLMStatus, LibraryHealth,
)
