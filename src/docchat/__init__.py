"""docchat: chat with your documents, locally."""

__version__ = "0.1.0"
