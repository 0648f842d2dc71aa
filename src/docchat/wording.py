"""How docchat words numbers and sizes, in the page and the terminal alike."""

from __future__ import annotations

UNITS = ("KB", "MB", "GB", "TB")


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`1 chunk`, `2 chunks`, `1,204 pages`."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def size(length: int) -> str:
    """A file size in the units people read: `86 bytes`, `4.2 KB`, `86 KB`, `1.3 MB` (1 KB = 1,024
    bytes); never `0 KB`."""
    if length < 1024:
        return count(length, "byte")
    value = length / 1024
    for unit in UNITS:
        shown = f"{value:.1f}" if value < 9.95 else f"{value:.0f}"
        if float(shown) < 1024 or unit == UNITS[-1]:
            break
        value /= 1024
    return f"{shown} {unit}"
