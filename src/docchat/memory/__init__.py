"""Per-conversation memory: exact token counts, a budgeted window, persistence via a log port."""
