"""Words and where they sit, read off a picture by Debian's tesseract-ocr (5.3, Apache-2.0, with
its English model from tesseract-ocr-eng; nothing is downloaded when it runs).

The `tesseract` program is run here directly, PNG in on its stdin and TSV out on its stdout, not
through pytesseract: that wrapper writes temporary files and guesses at errors, and what is
needed here is small (one command line, one table) and wants what the wrapper hides: the
process's environment (OMP_THREAD_LIMIT), its exit status and stderr, and a "not installed" told
apart from "this picture failed". The picture given to tesseract is always a PNG that Pillow
wrote (docchat.documents.kinds.images, and kinds.pdf's scanned pages): the untrusted file's
own bytes are decoded by Pillow or pdfium, never by Leptonica.

Tesseract's OpenMP threads are limited to one (OMP_THREAD_LIMIT=1): on two cores shared with
the app, the embedder and another worker, its threads only wait on each other (docs/perf/ocr.md
has the figures). A tesseract started by a parse worker belongs to the worker's process group,
which docchat.documents.isolated kills whole: a worker stopped mid-page leaves no tesseract behind.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass

from docchat.errors import InvalidInput

TESSERACT = "tesseract"
LANGUAGE = "eng"
# Resolution pages are read at; a picture bigger than this many pixels is scaled down first
# (tesseract's time grows with the pixels, its accuracy not past ~300 dpi).
DPI = 300
MAX_OCR_PIXELS = 12_000_000
NEEDED = "reading it needs tesseract-ocr, which is not installed (apt-get install tesseract-ocr tesseract-ocr-eng)"
# Words tesseract itself gives less confidence than this are noise (specks, texture), not text.
MIN_CONFIDENCE = 20.0


@dataclass(frozen=True)
class Word:
    """One recognised word and its box in the picture's pixels; `line` tells words of one line."""

    text: str
    left: int
    top: int
    width: int
    height: int
    line: tuple[int, int, int]  # (block, paragraph, line): words sharing it are one line
    paragraph: tuple[int, int]


def available() -> bool:
    return shutil.which(TESSERACT) is not None


def words(shown: str, png: bytes, *, timeout_s: float | None = None) -> list[Word]:
    """The words tesseract reads on the PNG, in reading order; InvalidInput when it cannot run."""
    if not available():
        raise InvalidInput(f"{shown} is a scan or an image: {NEEDED}")
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        done = subprocess.run([TESSERACT, "stdin", "stdout", "-l", LANGUAGE, "--dpi", str(DPI), "tsv"],
                              input=png, capture_output=True, env=env, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise InvalidInput(f"{shown}: reading it by OCR took more than {timeout_s:g} s") from None
    except OSError:
        raise InvalidInput(f"{shown} is a scan or an image: {NEEDED}") from None
    if done.returncode != 0:
        error = done.stderr.decode("utf-8", "replace")
        if "Failed loading language" in error or "Error opening data file" in error:
            raise InvalidInput(f"{shown} is a scan or an image: {NEEDED}")
        if done.returncode < 0:  # a picture that needs more than the worker's memory cap, most often
            raise InvalidInput(f"{shown} could not be read by OCR (tesseract crashed on it, over the memory cap?)")
        raise InvalidInput(f"{shown} could not be read by OCR (tesseract exit status {done.returncode})")
    return _table(done.stdout.decode("utf-8", "replace"))


def text_of(found: list[Word]) -> str:
    """The words as text: a line per line, a blank line between paragraphs."""
    lines: list[str] = []
    previous: Word | None = None
    for word in found:
        if previous is None:
            lines.append(word.text)
        elif word.line == previous.line:
            lines[-1] += " " + word.text
        else:
            if word.paragraph != previous.paragraph:
                lines.append("")
            lines.append(word.text)
        previous = word
    return "\n".join(lines)


def _table(tsv: str) -> list[Word]:
    found = []
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) != 12 or cells[0] != "5":
            continue  # a page, block, paragraph or line row: only words are kept
        text = cells[11].strip()
        try:
            confidence = float(cells[10])
            left, top, width, height = (int(cell) for cell in cells[6:10])
            block, paragraph, line = int(cells[2]), int(cells[3]), int(cells[4])
        except ValueError:
            continue
        if text and confidence >= MIN_CONFIDENCE:
            found.append(Word(text, left, top, width, height, (block, paragraph, line), (block, paragraph)))
    return found
