"""Errors a user can read. UI, CLI and API show their message as it is."""


class DocchatError(Exception):
    """Base of every error whose message is meant for the user."""


class NotFound(DocchatError):
    pass


class InvalidInput(DocchatError):
    pass


class InvalidExport(DocchatError):
    """An export file that cannot be imported; the message names the problem."""


class StoreUnavailable(DocchatError):
    pass
