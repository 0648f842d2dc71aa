"""A cited PDF page as a picture, with the cited passage marked on it.

pypdfium2 draws the page and finds where the passage's text sits on it; Pillow lays a
translucent mark over those places. A passage is found sentence by sentence (the chunker
joins lines and spaces as the page does not), so a passage split across a column or a line
break is still marked where its sentences are.
"""

from __future__ import annotations

import io
import re

SCALE = 2.0  # 144 dpi: sharp when the page fills the source view
MARK = (255, 213, 79, 110)
_SENTENCE = re.compile(r"(?<=[.;:!?])\s+")
# Sentences shorter than this match too much (a bare "Yes." would mark every "Yes").
MIN_PHRASE = 12
MAX_PHRASES = 12


def page_with_passage(pdf: bytes, page_number: int, passage: str) -> tuple[bytes, int]:
    """The 1-based page as PNG bytes with the passage marked, and how many places were marked."""
    # Imported here, when a page is shown: the services import this module at start-up.
    import pypdfium2 as pdfium
    from PIL import Image, ImageDraw

    document = pdfium.PdfDocument(pdf)
    try:
        page = document[page_number - 1]
        image = page.render(scale=SCALE).to_pil().convert("RGBA")
        boxes = _boxes(page, passage)
        page_height = page.get_height()
        page.close()
    finally:
        document.close()
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for left, bottom, right, top in boxes:
        # PDF space grows upwards from the bottom; the picture's grows downwards from the top.
        draw.rectangle((left * SCALE, (page_height - top) * SCALE, right * SCALE, (page_height - bottom) * SCALE),
                       fill=MARK)
    out = io.BytesIO()
    Image.alpha_composite(image, overlay).convert("RGB").save(out, format="PNG", optimize=True)
    return out.getvalue(), len(boxes)


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
