"""Images (PNG, JPEG, TIFF, WebP) to sections by OCR: one per image, labelled `page 1` (a
citation says "page 1" as it does of a one-page PDF, and the source view draws that page); a
multi-page TIFF one per frame, labelled `page N`.

Pillow (HPND licence) decodes the file, in the parse worker under its memory cap; tesseract only
ever sees a grey PNG Pillow wrote from it (docchat.documents.ocr). Before anything is decoded,
the size the header declares is checked: a picture over MAX_PIXELS (a decompression bomb: a few
KB that claim 100,000 x 100,000 pixels) is refused without being unpacked. Pillow's own bomb
check (MAX_IMAGE_PIXELS) stays on behind it. A truncated or damaged file, or anything Pillow does
not recognise as an image, is refused whole, as is an image on which OCR finds no text.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING

from docchat.documents import ocr
from docchat.documents.kinds import Kind, PageProgress
from docchat.domain import Section
from docchat.errors import InvalidInput

if TYPE_CHECKING:
    from PIL import Image

WORDS = "images and scans by OCR (PNG, JPEG, TIFF, WebP)"
# 60 megapixels: an A4 page scanned at 600 dpi is 35; a phone photo 12 to 50.
MAX_PIXELS = 60_000_000
# A multi-page TIFF (or a PDF) read by OCR has at most this many pages: at about a second a page,
# more is not a document someone waits for but a file made to keep a worker busy.
MAX_OCR_PAGES = 500
UNREADABLE = "is not a readable image (it may be damaged, or not an image)"
FORMATS = {"PNG", "JPEG", "MPO", "TIFF", "WEBP"}


def image_sections(shown: str, data: bytes, max_bytes: int, progress: PageProgress | None = None) -> list[Section]:
    """A section per image or frame, its text as OCR reads it (a frame without text gives a blank
    one, dropped by parse)."""
    sections = []
    for number, count, frame in frames(shown, data):
        if progress is not None:
            progress(number, count)
        try:
            grey, _ = grey_for_ocr(frame)
        except (ValueError, OSError):
            raise InvalidInput(f"{shown} {UNREADABLE}") from None
        text = ocr.text_of(ocr_words(shown, grey))
        sections.append(Section(f"page {number}", number, text))
    return sections


def frames(shown: str, data: bytes) -> Iterator[tuple[int, int, Image.Image]]:
    """(number, count, decoded frame) for each frame of the image, each one's size checked
    before it is decoded."""
    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            # Pillow warns of a picture over its MAX_IMAGE_PIXELS: refused just below, in one line.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
    except Image.DecompressionBombError:
        raise InvalidInput(f"{shown} declares more pixels than docchat reads ({MAX_PIXELS // 1_000_000} "
                           "megapixels at most): a decompression bomb?") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        raise InvalidInput(f"{shown} {UNREADABLE}") from None
    with image:
        if image.format not in FORMATS:
            raise InvalidInput(f"{shown} {UNREADABLE}")
        # A camera's MPO is a JPEG with its previews (or the other eye's view) after it: one picture.
        count = 1 if image.format == "MPO" else getattr(image, "n_frames", 1)
        if count > MAX_OCR_PAGES:
            raise InvalidInput(f"{shown} has {count} pages; docchat reads at most {MAX_OCR_PAGES} by OCR")
        for number in range(1, count + 1):
            try:
                image.seek(number - 1)
                _check_size(shown, image.size)
                image.load()
                frame = _upright(image) if count == 1 else image.copy()
            except InvalidInput:
                raise
            except MemoryError:
                raise  # the worker reports it (documents/isolated.py)
            except Exception:
                # Truncated data, a bad chunk checksum, an unknown compression, a bomb Pillow
                # caught itself: to the user, all one thing.
                raise InvalidInput(f"{shown} {UNREADABLE}") from None
            yield number, count, frame


def ocr_words(shown: str, grey: Image.Image, *, timeout_s: float | None = None) -> list[ocr.Word]:
    """The words OCR reads on a picture grey_for_ocr gave, boxes in its pixels."""
    out = io.BytesIO()
    grey.save(out, format="PNG", compress_level=1)
    return ocr.words(shown, out.getvalue(), timeout_s=timeout_s)


def grey_for_ocr(picture: Image.Image) -> tuple[Image.Image, float]:
    """The picture as 8-bit grey on white, scaled down to at most ocr.MAX_OCR_PIXELS, and the scale."""
    from PIL import Image

    if picture.mode in ("RGBA", "LA", "PA") or (picture.mode == "P" and "transparency" in picture.info):
        # Text drawn on a transparent background: black on nothing, which greys to all black.
        rgba = picture.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        picture = Image.alpha_composite(white, rgba)
    if picture.mode.startswith("I;16") or picture.mode in ("I", "F"):
        picture = picture.convert("I").point(lambda value: value * (1 / 256))  # 16-bit scans to 8 bits
    grey = picture.convert("L")
    width, height = grey.size
    scale = min(1.0, (ocr.MAX_OCR_PIXELS / max(1, width * height)) ** 0.5)
    if scale < 1.0:
        grey = grey.resize((max(1, int(width * scale)), max(1, int(height * scale))), Image.Resampling.LANCZOS)
    return grey, scale


def _upright(image: Image.Image) -> Image.Image:
    """A photo turned as its camera's EXIF says it was held (OCR reads upright text only); as it
    is when its EXIF cannot be read."""
    from PIL import ImageOps

    try:
        return ImageOps.exif_transpose(image)
    except MemoryError:
        raise
    except Exception:
        return image.copy()


def _check_size(shown: str, size: tuple[int, int]) -> None:
    width, height = size
    if width * height > MAX_PIXELS:
        raise InvalidInput(f"{shown} is {width:,} x {height:,} pixels; docchat reads images of up to "
                           f"{MAX_PIXELS // 1_000_000} megapixels")


KINDS = (Kind("image", (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp"), image_sections, by_pages=True),)
