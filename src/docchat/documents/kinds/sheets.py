"""Spreadsheets (XLSX, ODS, CSV, TSV) to sections: each sheet in runs of rows, labelled by the
sheet and the rows of the run (`Inventory, rows 2-19`; `row 7` for one).

Invariants:
- A sheet's header is its first row with a value in it. Every section starts with that row
  (`Item | Units | Price`), so a passage found alone still says what its columns are, and each row
  after it is one line in which every value carries its column's header (`Row 3: Item: Widget;
  Units: 312`); a column with no header is named by its letter (`column F`).
- Empty rows and empty cells give nothing, so empty columns vanish; rows keep the numbers the
  spreadsheet shows them under. A sheet with nothing but its header is one section of it.
- A run holds at most SECTION_ROWS rows and, past its first row, SECTION_CHARS characters (about
  200 to 250 tokens), so a section is most often one chunk, header and all; a long sheet has
  many sections.
- Values are read as the spreadsheet last showed them: a formula as its cached value (never
  computed here), a date as an ISO date (`2024-03-12`, with the time when it has one), a number
  without a float's noise (`312`, not `312.0`), TRUE and FALSE as spreadsheets write them.
- Each sheet with a header is also read as a table (docchat.tables.reading): its columns typed,
  its subtotal and total rows told apart, for figures computed over it.
- XLSX is read by openpyxl in read-only mode (rows streamed; external links not loaded), ODS by
  python-calamine (Rust; its XML reader expands no entity); neither fetches anything, and each is
  imported when a file of its kind is parsed. CSV and TSV are read by the standard csv module from
  text decoded as docchat decodes any text file, as one sheet named after the file.
"""

from __future__ import annotations

import csv
import datetime
import io
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import PurePath

from docchat.documents.kinds import Kind, Read
from docchat.documents.text_reading import decode
from docchat.documents.zip_formats import open_checked, refuse_encrypted_odf
from docchat.domain import Section
from docchat.domain.documents import SheetTable
from docchat.errors import InvalidInput
from docchat.tables.reading import MAX_ROWS, letters, table_of
from docchat.text import one_line

WORDS = "spreadsheets (XLSX, ODS, CSV, TSV)"
SECTION_ROWS = 40
SECTION_CHARS = 800
XLSX_UNREADABLE = "is not a readable Excel workbook (.xlsx)"
ODS_UNREADABLE = "is not a readable OpenDocument spreadsheet (.ods)"

Row = tuple[int, Sequence[object]]  # the row's number as the spreadsheet shows it, and its values from column A


def xlsx_sections(shown: str, data: bytes, max_bytes: int) -> Read:
    open_checked(shown, data, max_bytes, what="a workbook", suffix=".xlsx", unreadable=XLSX_UNREADABLE).close()
    import openpyxl  # type: ignore[import-untyped]

    try:
        with warnings.catch_warnings():
            # openpyxl warns of every extension it skips (data validation, conditional formats).
            warnings.simplefilter("ignore")
            workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True, keep_links=False)
            try:
                sheets = []
                for sheet in workbook.worksheets:
                    sheet.reset_dimensions()  # the size a file declares may be wrong, or hostile
                    sheets.append(read_sheet(sheet.title, enumerate(sheet.iter_rows(values_only=True), start=1)))
                return _read(sheets)
            finally:
                workbook.close()
    except (InvalidInput, MemoryError):
        raise  # out of memory is the isolation's to report (documents/isolated.py)
    except Exception:
        # zipfile, XML and openpyxl errors all mean the same thing to the user.
        raise InvalidInput(f"{shown} {XLSX_UNREADABLE}") from None


def ods_sections(shown: str, data: bytes, max_bytes: int) -> Read:
    with open_checked(shown, data, max_bytes, what="a spreadsheet", suffix=".ods",
                      unreadable=ODS_UNREADABLE) as archive:
        refuse_encrypted_odf(shown, archive)
    from python_calamine import CalamineWorkbook

    try:
        with CalamineWorkbook.from_filelike(io.BytesIO(data)) as workbook:
            sheets = []
            for name in workbook.sheet_names:
                sheet = workbook.get_sheet_by_name(name)
                # iter_rows gives every row from the first, and each from the first column with a value.
                left = sheet.start[1] if sheet.start else 0
                rows = ((number, [""] * left + values) for number, values in enumerate(sheet.iter_rows(), start=1))
                sheets.append(read_sheet(name, rows))
            return _read(sheets)
    except (InvalidInput, MemoryError):
        raise
    except BaseException as error:
        # Calamine's errors are CalamineError; a panic in its Rust code arrives as pyo3's
        # PanicException, which is no Exception. Anything else (KeyboardInterrupt) goes on.
        if not isinstance(error, Exception) and type(error).__name__ != "PanicException":
            raise
        raise InvalidInput(f"{shown} {ODS_UNREADABLE}") from None


def delimited_sections(shown: str, text: str, delimiter: str | None) -> Read:
    """A CSV or TSV file's text (decoded as docchat decodes text files) as one sheet named after the
    file. `delimiter`: None for a .csv, whose first line tells comma, semicolon or tab."""
    kind = "CSV" if delimiter is None else "TSV"
    text = text.replace("\0", "")  # a stray NUL, forgiven by the decoding; csv would trip on it
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter or _guess_delimiter(text))
    try:
        return _read([read_sheet(_file_stem(shown), enumerate(reader, start=1))])
    except csv.Error as error:
        raise InvalidInput(f"{shown} is not a readable {kind} file (line {reader.line_num}: "
                           f"{one_line(str(error))})") from None


def read_sheet(sheet: str, rows: Iterable[Row]) -> tuple[list[Section], SheetTable | None]:
    """The sections of one sheet, from its rows in order (see the module's invariants), and the
    sheet as a table (docchat.tables.reading); no table for a sheet with no header."""
    header: list[str] | None = None
    header_line = ""
    header_row = 0
    sections: list[Section] = []
    kept: list[tuple[int, list[str]]] = []
    run: list[str] = []
    first = last = size = 0
    for number, values in rows:
        cells = [_cell(value) for value in values]
        if not any(cells):
            continue
        if header is None:
            header, header_row = cells, number
            header_line = " | ".join(cell for cell in cells if cell)
            continue
        if len(kept) <= MAX_ROWS:
            kept.append((number, cells))
        line = f"Row {number}: " + "; ".join(
            f"{_column(header, index)}: {cell}" for index, cell in enumerate(cells) if cell)
        if run and (len(run) >= SECTION_ROWS or size + len(line) > SECTION_CHARS):
            sections.append(_section(sheet, first, last, [header_line, *run]))
            run, size = [], 0
        if not run:
            first = number
        run.append(line)
        last, size = number, size + len(line) + 1
    if run:
        sections.append(_section(sheet, first, last, [header_line, *run]))
    elif header is not None:
        sections.append(_section(sheet, header_row, header_row, [header_line]))
    return sections, table_of(sheet, header, header_row, kept) if header is not None else None


def _read(sheets: list[tuple[list[Section], SheetTable | None]]) -> Read:
    return Read([section for sections, _ in sheets for section in sections],
                tables=tuple(table for _, table in sheets if table is not None))


def _section(sheet: str, first: int, last: int, lines: list[str]) -> Section:
    rows = f"row {first}" if first == last else f"rows {first}-{last}"
    return Section(f"{sheet}, {rows}", None, "\n".join(lines))


def _column(header: list[str], index: int) -> str:
    named = header[index] if index < len(header) else ""
    return named or f"column {letters(index)}"


def _cell(value: object) -> str:
    """A value as the spreadsheet shows it, on one line; "" for an empty cell."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.15g}"  # the digits a spreadsheet keeps, without binary noise
    if isinstance(value, datetime.datetime):
        if value.time() == datetime.time():
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds" if value.second or value.microsecond else "minutes")
    if isinstance(value, datetime.time):
        return value.isoformat(timespec="seconds" if value.second or value.microsecond else "minutes")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return " ".join(str(value).split())


def _guess_delimiter(text: str) -> str:
    """Comma, semicolon (as spreadsheets write CSV where the comma is the decimal mark) or tab:
    whichever the first line with any of them has most of; comma on a tie."""
    for line in _first_lines(text):
        counts = {delimiter: line.count(delimiter) for delimiter in ",;\t"}
        if any(counts.values()):
            return max(counts, key=lambda delimiter: (counts[delimiter], delimiter == ","))
    return ","


def _first_lines(text: str, limit: int = 20) -> Iterator[str]:
    for number, line in enumerate(io.StringIO(text)):
        if number >= limit:
            return
        yield line


def _file_stem(shown: str) -> str:
    """The file's name without its folder or suffix, from its shown form ("name.csv")."""
    name = PurePath(shown.strip('"').replace("\\", "/")).name
    return name.rsplit(".", 1)[0] if "." in name.strip(".") else name


KINDS = (
    Kind("xlsx", (".xlsx",), xlsx_sections),
    Kind("ods", (".ods",), ods_sections),
    Kind("csv", (".csv",), lambda shown, data, max_bytes: delimited_sections(shown, decode(shown, data), None)),
    Kind("tsv", (".tsv",), lambda shown, data, max_bytes: delimited_sections(shown, decode(shown, data), "\t")),
)
