"""The pages of a PDF that have no text layer (scanned pages), read by OCR.

pypdfium2 (already what draws a cited page, Apache-2.0/BSD) renders each such page in grey at
300 dpi, or less for a page so large that this would pass ocr.MAX_OCR_PIXELS; tesseract reads the
picture (docchat.documents.ocr). A PDF that mixes text pages and scanned pages is read per page:
its text pages as they are, its scanned ones by OCR.
"""

from __future__ import annotations

from docchat.documents import ocr
from docchat.documents.kinds import PageProgress, images

POINTS_PER_INCH = 72


def scanned_texts(shown: str, pdf: bytes, pages: list[int], count: int,
                  progress: PageProgress | None = None) -> dict[int, str]:
    """The OCR text of each listed 1-based page of a PDF of `count` pages."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    try:
        texts = {}
        for number in pages:
            if progress is not None:
                progress(number, count)
            grey, _ = render_for_ocr(document, number)
            texts[number] = ocr.text_of(images.ocr_words(shown, grey))
        return texts
    finally:
        document.close()


def render_for_ocr(document, number: int):
    """The 1-based page as a grey picture for OCR, and its scale (pixels per PDF point)."""
    page = document[number - 1]
    try:
        width, height = page.get_size()
        scale = ocr.DPI / POINTS_PER_INCH
        scale = min(scale, (ocr.MAX_OCR_PIXELS / max(1.0, width * height)) ** 0.5)
        picture = page.render(scale=scale, grayscale=True).to_pil().convert("L")
    finally:
        page.close()
    return picture, scale
