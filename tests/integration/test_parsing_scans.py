"""Images and scanned PDF pages read by OCR (Debian's tesseract-ocr), every file made in the test:
text drawn with a DejaVu font into a picture, saved as PNG, JPEG, WebP or a multi-page TIFF, or
put in a PDF without a text layer, and a PDF with a text page and a scanned page. The words are
read, each page keeps its place, a question is cited at the scanned page, and the source view
marks the cited words on the scan."""

from __future__ import annotations

import struct
import zlib

import pytest
from PIL import Image

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.documents.kinds.images import MAX_OCR_PAGES
from docchat.documents.parsing import parse
from docchat.errors import InvalidInput

from tests.integration.test_documents import files_under
from tests.integration.test_parsing import pdf_of, reason
from tests.scanned_files import encoded, mixed_pdf, multipage_tiff, page_image, scanned_pdf

MANIFEST = ["The harbour master signed the cargo manifest.", "Anchor chain: 312 units from Harbour Forge."]
TONNAGE = ["Quarterly tonnage rose by nine percent.", "The North region sold 4,200 tonnes of salt."]
DEED = ["The Determination Date is the first Monday of June."]
ORIENTATION = 0x0112  # the EXIF tag


def text_of(document) -> str:
    return "\n".join(section.text for section in document.sections)


@pytest.mark.parametrize(("name", "format", "options"), [
    ("manifest.png", "PNG", {}),
    ("manifest.jpg", "JPEG", {"quality": 80}),
    ("manifest.webp", "WEBP", {"quality": 80}),
    ("manifest.tif", "TIFF", {}),
], ids=["png", "jpeg", "webp", "tiff"])
def test_an_image_is_read_by_ocr_as_one_section_labelled_page_1(name, format, options):
    picture = page_image(MANIFEST).convert("RGB")

    document = parse(name, encoded(picture, format, **options))

    assert document.kind == "image"
    assert [(s.label, s.page) for s in document.sections] == [("page 1", 1)]
    assert document.sections[0].text.split() == " ".join(MANIFEST).split()  # every word, as drawn


def test_text_on_a_transparent_background_is_read_as_black_on_white():
    picture = page_image(MANIFEST)
    transparent = picture.convert("LA")
    transparent.putalpha(picture.point(lambda value: 255 - value))  # ink opaque, paper see-through

    document = parse("logo.png", encoded(transparent, "PNG"))

    assert "Anchor chain: 312 units" in text_of(document)


def test_a_photo_taken_sideways_is_read_upright_as_its_camera_says_it_was_held():
    sideways = page_image(MANIFEST).rotate(90, expand=True).convert("RGB")
    exif = Image.Exif()
    exif[ORIENTATION] = 6  # "turn it 90 degrees clockwise to view it"

    document = parse("photo.jpg", encoded(sideways, "JPEG", quality=85, exif=exif.tobytes()))

    assert document.sections[0].text.split() == " ".join(MANIFEST).split()


def test_a_multi_page_tiff_gives_a_section_per_page():
    document = parse("fax.tiff", multipage_tiff(MANIFEST, TONNAGE))

    assert [(s.label, s.page) for s in document.sections] == [("page 1", 1), ("page 2", 2)]
    assert "cargo manifest" in document.sections[0].text and "4,200 tonnes" in document.sections[1].text


def test_a_scanned_pdf_is_read_page_by_page_by_ocr_with_progress_before_each_page():
    told: list[tuple[int, int]] = []

    document = parse("scan.pdf", scanned_pdf(MANIFEST, TONNAGE, DEED), progress=lambda *page: told.append(page))

    assert document.kind == "pdf"
    assert [s.label for s in document.sections] == ["page 1", "page 2", "page 3"]
    assert "Harbour Forge" in document.sections[0].text
    assert "4,200 tonnes of salt" in document.sections[1].text
    assert "first Monday of June" in document.sections[2].text
    assert told == [(1, 3), (2, 3), (3, 3)]


def test_a_pdf_mixing_a_text_page_and_a_scanned_page_is_read_per_page():
    told: list[tuple[int, int]] = []

    document = parse("deed.pdf", mixed_pdf(DEED, MANIFEST), progress=lambda *page: told.append(page))

    assert [(s.label, s.text.split()) for s in document.sections] == [
        ("page 1", DEED[0].split()), ("page 2", " ".join(MANIFEST).split())]
    assert told == [(2, 2)]  # only the scanned page was read by OCR


def png_declaring(width: int, height: int) -> bytes:
    """A PNG of a few bytes whose header claims width x height pixels (a decompression bomb)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = zlib.compress(b"\x00" * 64)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", rows) + chunk(b"IEND", b""))


MANIFEST_PNG = encoded(page_image(MANIFEST), "PNG")


@pytest.mark.parametrize(("name", "data", "why"), [
    ("manifest.png", MANIFEST_PNG[: len(MANIFEST_PNG) // 2], "is not a readable image"),
    ("notes.png", b"Bring the signed deed on Friday.\n" * 20, "is not a readable image"),
    ("huge.png", png_declaring(10_000, 10_000), "is 10,000 x 10,000 pixels; docchat reads images of up to 60"),
    ("bomb.png", png_declaring(100_000, 100_000), "declares more pixels than docchat reads"),
    ("blank.png", encoded(page_image([]), "PNG"), "has no text to index (no text found by OCR)"),
    ("blank.pdf", scanned_pdf([]), "has no text to index (no text found by OCR)"),
    ("fax.tiff", encoded(Image.new("L", (8, 8), 255), "TIFF", save_all=True,
                         append_images=[Image.new("L", (8, 8), 255)] * MAX_OCR_PAGES),
     f"has {MAX_OCR_PAGES + 1} pages; docchat reads at most {MAX_OCR_PAGES} by OCR"),
    ("archive.pdf", pdf_of(*[""] * (MAX_OCR_PAGES + 1)),
     f"has {MAX_OCR_PAGES + 1} pages without text; docchat reads at most {MAX_OCR_PAGES} by OCR"),
], ids=["truncated", "not an image", "huge", "decompression bomb", "no text", "scan with no text", "too many frames",
        "too many scanned pages"])
def test_a_bad_image_is_refused_in_one_line(name, data, why):
    with pytest.raises(InvalidInput) as refused:
        parse(name, data)

    assert reason(refused).startswith(f'"{name}" {why}')


def test_without_tesseract_an_image_or_a_scan_is_refused_saying_what_is_needed(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH where no tesseract is

    for name, data in (("manifest.png", MANIFEST_PNG), ("scan.pdf", scanned_pdf(MANIFEST))):
        with pytest.raises(InvalidInput) as refused:
            parse(name, data)
        assert reason(refused) == (f'"{name}" is a scan or an image: reading it needs tesseract-ocr, which is not '
                                   "installed (apt-get install tesseract-ocr tesseract-ocr-eng)")


# Through the document library (its parser runs in worker processes)


def test_a_question_about_a_scanned_page_is_cited_at_that_page_and_its_words_marked_on_the_scan(library):
    stages: list[str] = []
    library.ingestion.ingest("shipping.pdf", scanned_pdf(TONNAGE, MANIFEST, DEED), progress=lambda stage, share: stages.append(stage))

    [best, *_] = library.retrieval.retrieve("Who supplied the anchor chain?", top_k=3)
    cited = best.citation(1)
    view = library.documents.source(cited)

    assert ["reading page 1 of 3 (OCR)", "reading page 2 of 3 (OCR)", "reading page 3 of 3 (OCR)"] == \
        [stage for stage in stages if stage.startswith("reading")]
    assert (best.document, cited.where, cited.page) == ("shipping.pdf", "page 2", 2)
    assert "Anchor chain: 312 units from Harbour Forge." in cited.text
    assert view.page_image.startswith(b"\x89PNG") and view.marked >= 1


def test_a_question_about_a_photo_of_a_page_is_cited_by_the_image_and_marked_on_it(library):
    library.ingestion.ingest("whiteboard.jpg", encoded(page_image(TONNAGE).convert("RGB"), "JPEG", quality=85))

    [best, *_] = library.retrieval.retrieve("How many tonnes did the North region sell?", top_k=3)
    cited = best.citation(1)
    view = library.documents.source(cited)

    assert (best.document, cited.where) == ("whiteboard.jpg", "page 1")
    assert "4,200 tonnes of salt" in cited.text
    assert view.page_image.startswith(b"\x89PNG") and view.marked >= 1


@pytest.fixture
def small_library(data_dir, shared_embedder):
    services = build_services(Settings(data_dir=data_dir, max_upload_mb=1), embedder=shared_embedder)
    yield services
    services.close()


@pytest.mark.parametrize(("name", "data", "why"), [
    ("manifest.png", MANIFEST_PNG[:2000], "is not a readable image"),
    ("bomb.png", png_declaring(100_000, 100_000), "declares more pixels"),
    ("blank.png", encoded(page_image([]), "PNG"), "has no text to index (no text found by OCR)"),
], ids=["damaged", "decompression bomb", "no text"])
def test_a_bad_image_is_refused_in_one_line_and_the_library_is_unchanged(small_library, data_dir, name, data, why):
    kept = small_library.ingestion.ingest("fax.tiff", multipage_tiff(MANIFEST))
    stored = files_under(data_dir)

    with pytest.raises(InvalidInput) as refused:
        small_library.ingestion.add(name, data)

    assert reason(refused).startswith(f'"{name}" {why}')
    assert small_library.documents.list() == [kept] and files_under(data_dir) == stored
    assert small_library.index.open().count() == kept.chunks
