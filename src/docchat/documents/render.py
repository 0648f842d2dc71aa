"""A cited PDF page or image as a picture, with the cited passage marked on it.

pypdfium2 draws the page and finds where the passage's text sits on it; Pillow lays a
translucent mark over those places. A passage is found sentence by sentence (the chunker
joins lines and spaces as the page does not), so a passage split across a column or a line
break is still marked where its sentences are.

A scanned page (a PDF page without a text layer) or an image has no text to search: the page is
read by OCR again when it is shown (about a second; the words' boxes are not kept at ingestion,
which would store a box per word of every scan for the few pages anyone opens), and the words
of the page that stand in the passage in runs of three or more are marked, a box per line.
The picture is the only thing made of the file: no text of it becomes markup.
"""

from __future__ import annotations

import io
import re

SCALE = 2.0  # 144 dpi: sharp when the page fills the source view
# An image is shown at most this wide (a phone photo is 4,000 pixels; the dialog is not).
MAX_SHOWN_WIDTH = 1600
# Reading a page again when it is shown: the app's own process waits on it, so it has a limit.
OCR_TIMEOUT_S = 30.0
# Words in a row that must stand in the passage in the same order for them to be marked.
RUN = 3
_TOKEN = re.compile(r"[^\W_]+")
MARK = (255, 213, 79, 110)
_SENTENCE = re.compile(r"(?<=[.;:!?])\s+")
# Sentences shorter than this match too much (a bare "Yes." would mark every "Yes").
MIN_PHRASE = 12
MAX_PHRASES = 12


def page_with_passage(original: bytes, page_number: int, passage: str, *, kind: str = "pdf") -> tuple[bytes, int]:
    """The 1-based page (of a PDF, or frame of an image) as PNG bytes with the passage marked,
    and how many places were marked."""
    if kind == "image":
        return _image_with_passage(original, page_number, passage)
    # Imported here, when a page is shown: the services import this module at start-up.
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(original)
    try:
        page = document[page_number - 1]
        image = page.render(scale=SCALE).to_pil().convert("RGBA")
        page_height = page.get_height()
        if _has_text(page):
            boxes = [  # PDF space grows upwards from the bottom; the picture's grows downwards from the top.
                (left * SCALE, (page_height - top) * SCALE, right * SCALE, (page_height - bottom) * SCALE)
                for left, bottom, right, top in _boxes(page, passage)
            ]
            page.close()
        else:
            page.close()
            from docchat.documents import scans

            grey, scale = scans.render_for_ocr(document, page_number)
            boxes = _ocr_boxes(grey, passage, SCALE / scale)
    finally:
        document.close()
    return _marked(image, boxes), len(boxes)


def _image_with_passage(original: bytes, frame_number: int, passage: str) -> tuple[bytes, int]:
    from docchat.documents.kinds import images

    for number, _, frame in images.frames("the image", original):
        if number == frame_number:
            picture = frame
            break
    else:
        raise ValueError(f"the image has no frame {frame_number}")
    grey, scale = images.grey_for_ocr(picture)
    shown_scale = min(1.0, MAX_SHOWN_WIDTH / max(1, picture.width))
    shown = picture.convert("RGBA")
    if shown_scale < 1.0:
        shown = shown.resize((max(1, int(shown.width * shown_scale)), max(1, int(shown.height * shown_scale))))
    boxes = _ocr_boxes(grey, passage, shown_scale / scale)
    return _marked(shown, boxes), len(boxes)


def _ocr_boxes(grey, passage: str, factor: float) -> list[tuple[float, float, float, float]]:
    """Boxes (left, top, right, bottom), in the shown picture's pixels (OCR's times `factor`),
    of the page's words that stand in the passage: one per line of marked words."""
    from docchat.documents.kinds import images

    found = images.ocr_words("the page", grey, timeout_s=OCR_TIMEOUT_S)
    marked = marked_words([w.text for w in found], passage)
    lines: dict[tuple[int, int, int], list[float]] = {}
    for index in marked:
        word = found[index]
        box = lines.setdefault(word.line, [word.left, word.top, word.left + word.width, word.top + word.height])
        box[:] = [min(box[0], word.left), min(box[1], word.top),
                  max(box[2], word.left + word.width), max(box[3], word.top + word.height)]
    return [(left * factor, top * factor, right * factor, bottom * factor)
            for left, top, right, bottom in lines.values()]


def marked_words(page_words: list[str], passage: str) -> list[int]:
    """The indexes of the page's words that stand, RUN or more in a row, in the passage in that
    order (case and punctuation aside): OCR's words and the passage's, which is OCR text too."""
    tokens = [(index, token) for index, word in enumerate(page_words) for token in [_normal(word)] if token]
    wanted = [token for word in passage.split() if (token := _normal(word))]
    run = min(RUN, len(wanted))
    if run == 0:
        return []
    runs = {tuple(wanted[i:i + run]) for i in range(len(wanted) - run + 1)}
    marked: set[int] = set()
    for start in range(len(tokens) - run + 1):
        window = tokens[start:start + run]
        if tuple(token for _, token in window) in runs:
            marked.update(index for index, _ in window)
    return sorted(marked)


def _normal(word: str) -> str:
    return "".join(_TOKEN.findall(word.lower()))


def _marked(image, boxes: list[tuple[float, float, float, float]]) -> bytes:
    from PIL import Image, ImageDraw

    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for box in boxes:
        draw.rectangle(box, fill=MARK)
    out = io.BytesIO()
    Image.alpha_composite(image, overlay).convert("RGB").save(out, format="PNG", optimize=True)
    return out.getvalue()


def _has_text(page) -> bool:
    text_page = page.get_textpage()
    try:
        return bool(text_page.get_text_range().strip())
    finally:
        text_page.close()


def _boxes(page, passage: str) -> list[tuple[float, float, float, float]]:
    text_page = page.get_textpage()
    boxes = []
    try:
        for phrase in _phrases(passage):
            searcher = text_page.search(phrase, match_case=False, match_whole_word=False)
            found = searcher.get_next()
            if found is not None:
                start, count = found
                boxes += _rects(text_page, start, count)
            searcher.close()
    finally:
        text_page.close()
    return boxes


def _rects(text_page, start: int, count: int) -> list[tuple[float, float, float, float]]:
    rects = []
    for index in range(text_page.count_rects(start, count)):
        rects.append(text_page.get_rect(index))
    return rects


def _phrases(passage: str) -> list[str]:
    sentences = [" ".join(part.split()) for part in _SENTENCE.split(passage)]
    return [s for s in sentences if len(s) >= MIN_PHRASE][:MAX_PHRASES]
