"""OCR's accuracy and speed on generated pages, as docchat reads them (docs/perf/ocr.md).

    python -m docchat_bench.ocr [--pages N]

Each page is an A4 page at 300 dpi (2480 x 3508 pixels) of 30 lines of generated prose, drawn
in DejaVu Sans at 11 pt (46 px); a second set is the same pages as a scanner might give them back
(tilted up to a degree, blurred, specked, saved as JPEG at quality 60); a third, pages as the tests
draw them (150 dpi, 34 px).
Each page goes through docchat's own path (docchat.documents.kinds.images: grey, PNG, tesseract by
docchat.documents.ocr), once with tesseract's OpenMP threads left alone and once limited to one
(OMP_THREAD_LIMIT=1, what docchat sets): pages per second of each, and the character and word
error rates (edit distance over the reference's length, whitespace normalised) of the text read.
Figures are printed; nothing is asserted about time.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from unittest import mock

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
WORDS = ("harbour master signed cargo manifest anchor chain units delivered forge trustees met "
         "determination date first monday june quarterly tonnage rose nine percent north region sold "
         "salt lease tenant review rent fifth anniversary deed bring friday ledger invoice 312 4,200 "
         "Lisbon Funchal Madeira Whitby Kessler Marine galvanised shackle size supplier inventory").split()


def lines_of(seed: int, count: int, max_chars: int) -> list[str]:
    """Lines of prose-like words, each short enough to stay on the page."""
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randint(7, 10))]
        words[0] = words[0].capitalize()
        while len(" ".join(words)) >= max_chars:
            words.pop()
        lines.append(" ".join(words) + ".")
    return lines


def page(lines: list[str], *, width: int, height: int, size: int, step: int):
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(FONT, size)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    for number, line in enumerate(lines):
        draw.text((width // 12, height // 14 + step * number), line, font=font, fill=0)
    return image


def scanned(picture, seed: int):
    """The page as a scanner might give it back: tilted by a degree, blurred, specked, as JPEG."""
    import io

    from PIL import Image, ImageFilter

    rng = random.Random(seed)
    tilted = picture.rotate(rng.uniform(-1.0, 1.0), resample=Image.Resampling.BICUBIC, fillcolor=255)
    blurred = tilted.filter(ImageFilter.GaussianBlur(0.8))
    specks = blurred.load()
    for _ in range(blurred.width * blurred.height // 400):
        specks[rng.randrange(blurred.width), rng.randrange(blurred.height)] = rng.choice((0, 90, 160))
    out = io.BytesIO()
    blurred.save(out, format="JPEG", quality=60)
    return Image.open(io.BytesIO(out.getvalue()))


def distance(a: list, b: list) -> int:
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        current = [i]
        for j, y in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def measure(pages: list[tuple[object, str]], *, one_thread: bool) -> tuple[float, float, float]:
    """(pages per second, character error rate, word error rate) of docchat's OCR on the pages."""
    from docchat.documents import ocr
    from docchat.documents.kinds import images

    environ = dict(os.environ)
    environ.pop("OMP_THREAD_LIMIT", None)
    # ocr.words sets OMP_THREAD_LIMIT=1; for the comparison, tesseract's own default is let through.
    real_run = ocr.subprocess.run

    def run(command, **options):
        if not one_thread:
            options["env"] = {k: v for k, v in options["env"].items() if k != "OMP_THREAD_LIMIT"}
        return real_run(command, **options)

    chars = words = char_errors = word_errors = 0
    started = time.perf_counter()
    with mock.patch.dict(os.environ, environ, clear=True), mock.patch.object(ocr.subprocess, "run", run):
        for picture, reference in pages:
            grey, _ = images.grey_for_ocr(picture)
            read = " ".join(ocr.text_of(images.ocr_words("page", grey)).split())
            expected = " ".join(reference.split())
            chars += len(expected)
            words += len(expected.split())
            char_errors += distance(list(read), list(expected))
            word_errors += distance(read.split(), expected.split())
    elapsed = time.perf_counter() - started
    return len(pages) / elapsed, char_errors / chars, word_errors / words


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="OCR accuracy and pages per second (docs/perf/ocr.md)")
    parser.add_argument("--pages", type=int, default=6)
    args = parser.parse_args(argv)
    a4 = [(page(lines, width=2480, height=3508, size=46, step=100), "\n".join(lines))
          for lines in (lines_of(seed, 30, 72) for seed in range(args.pages))]
    tests = [(page(lines, width=1240, height=1754, size=34, step=56), "\n".join(lines))
             for lines in (lines_of(100 + seed, 20, 48) for seed in range(args.pages))]
    noisy = [(scanned(picture, number), text) for number, (picture, text) in enumerate(a4)]
    print(f"{args.pages} pages per set, tesseract from docchat's OCR path")
    print("pages                         OMP threads  pages/s  s/page  CER     WER")
    for name, pages in (("A4 300 dpi, 30 lines, 11 pt", a4), ("the same, scanned-like", noisy),
                        ("tests' pages, 150 dpi, 20 ln", tests)):
        for one_thread in (False, True):
            speed, cer, wer = measure(pages, one_thread=one_thread)
            threads = "1" if one_thread else "default"
            print(f"{name:<29} {threads:<12} {speed:7.2f}  {1 / speed:6.2f}  {cer:6.2%}  {wer:6.2%}")


if __name__ == "__main__":
    main()
