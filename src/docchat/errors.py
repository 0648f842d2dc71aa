"""Errors a user can read. UI, CLI and API show their message as it is."""


class DocchatError(Exception):
    """Base of every error whose message is meant for the user."""


class NotFound(DocchatError):
    pass


class InvalidInput(DocchatError):
    pass


class InvalidExport(DocchatError):
    """An export file that cannot be imported; the message names the problem."""


class InvalidBackup(DocchatError):
    """A backup archive that cannot be restored; the message names the problem."""


class StoreUnavailable(DocchatError):
    pass


class DatabaseNotOpened(DocchatError):
    """This docchat cannot use the database, and changed nothing in it: a newer docchat wrote it,
    or its upgrade failed and was rolled back. The message is the one line to show."""


class IndexInUse(DocchatError):
    """The local document index is open in another process (the app): a Qdrant Edge shard
    allows one at a time."""


class UnusableOutput(Exception):
    """A model's answer to one of docchat's own programs that cannot be used: cut off, not in
    the fields asked for, empty, or too slow. Never shown: the program's caller falls back."""


class ServerEnded(DocchatError):
    """The LLM server docchat started took requests, then its process ended before docchat's own
    look saw it answer (seen: a client's first question, then its engine killed, within one look's
    half second): it did start, so it is restarted as any server that stops."""


class LLMError(DocchatError):
    """A failure talking to the LLM; the user's message is kept and the turn can be retried."""


class LLMUnavailable(LLMError):
    pass


class ModelMissing(LLMError):
    pass


class ContextOverflow(LLMError):
    pass


class LLMServerError(LLMError):
    pass


class StreamCut(LLMError):
    pass


class LLMTimeout(LLMError):
    pass


class GenerationStopped(LLMError):
    """The user stopped the answer; what arrived is kept as an interrupted message."""
