"""Scanned pages made in the tests: text drawn into a picture with a DejaVu font (what a scanner
would give, without the noise), and PDFs holding such pictures with no text layer."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"  # fonts-dejavu-core, installed by system-deps
WIDTH = 1240  # an A4 page's width at 150 dpi
LINE_PX = 56


def page_image(lines: list[str], *, height: int | None = None, size: int = 34) -> Image.Image:
    """A white page with the lines in black, one under the other."""
    font = ImageFont.truetype(FONT, size)
    image = Image.new("L", (WIDTH, height or 120 + LINE_PX * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    for number, line in enumerate(lines):
        draw.text((80, 60 + LINE_PX * number), line, font=font, fill=0)
    return image


def encoded(image: Image.Image, format: str, **options) -> bytes:
    out = io.BytesIO()
    image.save(out, format=format, **options)
    return out.getvalue()


def scanned_pdf(*pages: list[str]) -> bytes:
    """A PDF of page pictures and nothing else: no text layer, as a scanner makes them."""
    images = [page_image(lines, height=1754).convert("RGB") for lines in pages]
    return encoded(images[0], "PDF", resolution=150.0, save_all=True, append_images=images[1:])


def mixed_pdf(text_lines: list[str], scanned_lines: list[str]) -> bytes:
    """A PDF whose first page has a text layer and whose second page is a scan."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_font("helvetica", size=12)
    pdf.add_page()
    for line in text_lines:
        pdf.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()
    picture = io.BytesIO(encoded(page_image(scanned_lines, height=1754), "PNG"))
    pdf.image(picture, x=0, y=0, w=210, h=297)
    return bytes(pdf.output())


def multipage_tiff(*pages: list[str]) -> bytes:
    images = [page_image(lines) for lines in pages]
    return encoded(images[0], "TIFF", save_all=True, append_images=images[1:], compression="tiff_deflate")
