"""Which library reads the tables of a PDF's pages: pdfplumber against Camelot, on PDFs made by
fpdf2 (docs/perf/pdf-tables.md).

    docchat bench pdf-tables [--documents N] [--first-seed S] [--json]

Each document is a few pages of prose with tables between the paragraphs, drawn by fpdf2's own
table writer in the layouts reports use: ruled on every side, horizontal rules only, a rule under
the header only, and none at all; numbers as people write them ($1,200, 12%, a dash for none), right-aligned or not; narrow
tables and type of 8 points; a notes column whose cells wrap onto a second line;
some tables long enough to run onto the next page (fpdf2 repeats the header there). Pages of
prose alone count the tables a reader finds where there is none.

Each reader is scored per table drawn: found (some table on its page shares its header), cells
right (the share of the drawn cells read at their row and column, the header's included), and
exact (every cell right); tables found on prose-only pages; and seconds per page. Camelot is
measured only where it is installed (it is not among docchat's dependencies); docchat's own path
(docchat.documents.kinds.pdf) is always measured. Figures are printed; nothing about time is
asserted.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

Grid = list[list[str]]
LAYOUTS = ("ALL", "HORIZONTAL_LINES", "SINGLE_TOP_LINE", "NONE")
PROSE = ("The quarterly review found that the northern depots kept more stock than planned while the "
         "harbour office asked for a second count before the spring audit. Deliveries were late twice "
         "in March, and the trustees agreed to move the lease review to the first Monday of June. "
         "Every figure below is as counted on the last day of the month.").split()
_ITEMS = ("tape", "rope", "shackle", "pallet wrap", "anchor chain", "buoy", "net", "hook", "winch",
          "tarpaulin", "crate", "fender")
_PLACES = ("Oslo", "Bergen", "Tromsø", "Stavanger", "Lisbon", "Funchal", "Whitby", "Hull", "Porto", "Cork")


@dataclass
class Drawn:
    """A document drawn for the bench: its bytes, and each table's page and cells as drawn."""

    data: bytes
    pages: int
    tables: list[tuple[int, int, Grid]] = field(default_factory=list)  # first page, last page, cells
    prose_pages: list[int] = field(default_factory=list)


def _table(rng: random.Random) -> Grid:
    columns = rng.choice([
        ["Item", "Location", "Pallets", "Unit price"],
        ["Location", "Item", "Units sold", "Revenue", "Share"],
        ["Month", "Region", "Orders", "Returns"],
        ["Supplier", "Contract ends", "Value"],
        ["Item", "Pallets"],
        ["Item", "Pallets", "Notes"],
    ])
    rows = []
    for _ in range(rng.choice([3, 5, 8, 12, 40])):
        row = []
        for name in columns:
            if name == "Item":
                row.append(rng.choice(_ITEMS))
            elif name in ("Location", "Region"):
                row.append(rng.choice(_PLACES))
            elif name == "Month":
                row.append(rng.choice(["January", "February", "March", "April"]) + " 2025")
            elif name == "Supplier":
                row.append(rng.choice(["Kessler Marine", "Nordic Rope AS", "Harbour Supply Ltd"]))
            elif name == "Contract ends":
                row.append(f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
            elif name in ("Unit price", "Value", "Revenue"):
                row.append(f"${rng.randint(1, 90_000):,}" if rng.random() > 0.1 else "-")
            elif name == "Notes":
                row.append(rng.choice(["", "recount", "damaged in transit, two pallets returned to the supplier",
                                       "kept for the spring audit"]))
            elif name == "Share":
                row.append(f"{rng.randint(1, 99)}%")
            else:
                row.append(f"{rng.randint(0, 20_000):,}")
        rows.append(row)
    return [columns, *rows]


def drawn_document(seed: int) -> Drawn:
    from fpdf import FPDF

    rng = random.Random(seed)
    pdf = FPDF(format="A4")
    pdf.set_font("Helvetica", size=10)
    tables: list[tuple[int, int, Grid]] = []
    prose_pages: list[int] = []
    for _ in range(rng.randint(1, 3)):
        pdf.add_page()
        if rng.random() < 0.25:
            prose = " ".join(rng.choice(PROSE) for _ in range(500))
            if rng.random() < 0.5:
                pdf.multi_cell(0, 5, prose)
            else:  # two columns, as papers print them
                with pdf.text_columns(ncols=2, gutter=8) as columns:
                    columns.write(prose)
            prose_pages.append(pdf.page)
            continue
        pdf.multi_cell(0, 5, " ".join(rng.choice(PROSE) for _ in range(60)))
        pdf.ln(4)
        grid = _table(rng)
        page = pdf.page
        numeric = tuple("LEFT" if not any(ch.isdigit() for ch in grid[1][i]) else rng.choice(["LEFT", "RIGHT"])
                        for i in range(len(grid[0])))
        pdf.set_font_size(rng.choice([8, 10]))
        with pdf.table(borders_layout=rng.choice(LAYOUTS), first_row_as_headings=True, text_align=numeric,
                       width=rng.choice([110, 150, 190]), align="LEFT") as table:
            for cells in grid:
                row = table.row()
                for cell in cells:
                    row.cell(cell)
        tables.append((page, pdf.page, grid))
        pdf.set_font_size(10)
        pdf.ln(4)
        pdf.multi_cell(0, 5, " ".join(rng.choice(PROSE) for _ in range(40)))
    return Drawn(bytes(pdf.output()), pdf.page, tables, prose_pages)


# A reader: the document's bytes -> (page number, cells) of every table it found.
Reader = Callable[[bytes], list[tuple[int, Grid]]]


def _plumbed(settings: dict | None) -> Reader:
    def read(data: bytes) -> list[tuple[int, Grid]]:
        import pdfplumber

        found = []
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for page in pdf.pages:
                for table in page.extract_tables(settings or {}):
                    found.append((page.page_number, [[cell or "" for cell in row] for row in table]))
        return found
    return read


def _camelot(flavor: str) -> Reader:
    def read(data: bytes) -> list[tuple[int, Grid]]:
        import tempfile

        import camelot

        with tempfile.NamedTemporaryFile(suffix=".pdf") as file:
            file.write(data)
            file.flush()
            tables = camelot.read_pdf(file.name, pages="all", flavor=flavor)
            return [(int(t.page), t.df.astype(str).values.tolist()) for t in tables]
    return read


def _docchat(data: bytes) -> list[tuple[int, Grid]]:
    from docchat.documents.pdf_tables import pdf_tables
    from pypdf import PdfReader

    pages = range(1, len(PdfReader(io.BytesIO(data)).pages) + 1)
    return [(table.pages[0], table.grid) for table in pdf_tables(data, list(pages))]


def readers() -> dict[str, Reader]:
    """docchat's reader, and each other one that is installed (pdfplumber comes with the bench
    extra; Camelot, which needs OpenCV, does not)."""
    chosen: dict[str, Reader] = {"docchat (its reader over PDFium's words)": _docchat}
    if _importable("pdfplumber"):
        chosen["pdfplumber (lines)"] = _plumbed(None)
        chosen["pdfplumber (text)"] = _plumbed({"vertical_strategy": "text", "horizontal_strategy": "text"})
    if _importable("camelot"):
        chosen["camelot (lattice)"] = _camelot("lattice")
        chosen["camelot (stream)"] = _camelot("stream")
    return chosen


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _plain(cell: str) -> str:
    return " ".join(str(cell).split()).casefold()


def _filled(row: list[str]) -> list[str]:
    return [_plain(c) for c in row if _plain(c)]


def _extra(drawn: Grid, read: Grid) -> int:
    """Rows read into the table that were not drawn in it (prose taken for rows, headers repeated)."""
    header = [_plain(c) for c in drawn[0]]
    rows = [_filled(row) for row in read if _filled(row)]
    return max(0, len(rows[:1]) + sum(1 for row in rows[1:] if row != header) - len(drawn))


def _score(drawn: Grid, read: Grid) -> tuple[int, int]:
    """(cells right, cells drawn): rows matched in order from the header on, each row's non-empty
    cells in order (a reader that splits the page into more columns than the table has is not
    penalised for the empty ones, nor one that reads a drawn empty cell as none); a header the
    reader repeats on a later page is passed over."""
    expected = [_filled(row) for row in drawn]
    got = [_filled(row) for row in read if _filled(row)]
    right = at = 0
    for number, row in enumerate(expected):
        while number and at < len(got) and got[at] == expected[0]:
            at += 1
        if at < len(got):
            right += sum(1 for a, b in zip(row, got[at], strict=False) if a == b)
            at += 1
    return right, sum(len(row) for row in expected)


def _joined(found: list[tuple[int, Grid]], page: int, last: int, header: list[str]) -> Grid | None:
    """The rows read on `page` from the drawn header on, with those of the tables read on the
    next pages up to `last` that carry it on (fpdf2 repeats the header there), each as its own
    table or as one; None if no table on `page` holds the header's row."""
    plain = [_plain(c) for c in header]
    for index, (at_page, grid) in enumerate(found):
        starts = [i for i, row in enumerate(grid) if _filled(row) == plain]
        if at_page != page or not starts:
            continue
        rows = list(grid[starts[0]:])
        if any(_filled(row) == plain for row in rows[1:]):
            return rows  # read as one table
        for later_page, later in found[index + 1:]:
            if later_page != page + 1 or later_page > last or not any(_filled(row) == plain for row in later[:3]):
                break
            rows.extend(later)
            page = later_page
        return rows
    return None


def run_pdf_tables_bench(*, documents: int = 30, first_seed: int = 0, as_json: bool = False) -> dict:
    drawn = [drawn_document(seed) for seed in range(first_seed, first_seed + documents)]
    pages = sum(d.pages for d in drawn)
    report: dict = {"documents": documents, "pages": pages, "tables": sum(len(d.tables) for d in drawn),
                    "prose_pages": sum(len(d.prose_pages) for d in drawn), "readers": {}}
    for name, read in readers().items():
        right = cells = found = exact = false = extra = 0
        started = time.perf_counter()
        for document in drawn:
            tables = read(document.data)
            false += sum(1 for page, _ in tables if page in document.prose_pages)
            for page, last, grid in document.tables:
                joined = _joined(tables, page, last, grid[0])
                if joined is None:
                    cells += sum(len(_filled(row)) for row in grid)
                    continue
                found += 1
                got, of = _score(grid, joined)
                right, cells, exact = right + got, cells + of, exact + (got == of)
                extra += _extra(grid, joined)
        seconds = time.perf_counter() - started
        report["readers"][name] = {"found": found, "cells_right": round(right / max(cells, 1), 3),
                                   "exact": exact, "extra_rows": extra, "false_tables": false, "s_per_page": round(seconds / pages, 4)}
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{documents} documents, {pages} pages, {report['tables']} tables drawn, "
              f"{report['prose_pages']} pages of prose alone")
        print(f"{'reader':40} {'found':>6} {'cells right':>12} {'exact':>6} {'extra rows':>10} {'false':>6} {'s/page':>8}")
        for name, row in report["readers"].items():
            print(f"{name:40} {row['found']:>6} {row['cells_right']:>12.3f} {row['exact']:>6} {row['extra_rows']:>10} "
                  f"{row['false_tables']:>6} {row['s_per_page']:>8.4f}")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=30)
    parser.add_argument("--first-seed", type=int, default=0,
                        help="draw other documents than the default ones (seeds 0 to 39 were looked at while "
                             "docchat's reader was written; others were not)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    run_pdf_tables_bench(documents=args.documents, first_seed=args.first_seed, as_json=args.json)


if __name__ == "__main__":
    main()
