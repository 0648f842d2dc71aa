"""Slides and spreadsheets made in the tests by the libraries that write them: python-pptx, openpyxl,
XlsxWriter (an .xlsx whose formulas carry cached values, which openpyxl never writes), odfpy (.ods)
and csv. Each builder returns the file's bytes."""

from __future__ import annotations

import csv
import datetime
import io
import zipfile

import openpyxl
import xlsxwriter
from odf.opendocument import OpenDocumentSpreadsheet
from odf.table import Table, TableCell, TableRow
from odf.text import P
from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Inches

TITLE_AND_CONTENT, TITLE_ONLY, BLANK = 1, 5, 6  # slide layouts of python-pptx's default template

Rows = list[list[object]]


def pptx_of(*slides) -> bytes:
    """A presentation with a slide for each function given, which draws it: f(slide)."""
    presentation = Presentation()
    for draw in slides:
        draw(presentation)
    buffer = io.BytesIO()
    presentation.save(buffer)
    return buffer.getvalue()


def titled(title: str, body: str = "", notes: str = ""):
    """A slide of a title, a body (one paragraph a line) and speaker notes."""

    def draw(presentation) -> None:
        slide = presentation.slides.add_slide(presentation.slide_layouts[TITLE_AND_CONTENT])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = body
        if notes:
            slide.notes_slide.notes_text_frame.text = notes

    return draw


def with_table(title: str, rows: list[list[str]]):
    def draw(presentation) -> None:
        slide = presentation.slides.add_slide(presentation.slide_layouts[TITLE_ONLY])
        slide.shapes.title.text = title
        table = slide.shapes.add_table(len(rows), len(rows[0]), Inches(1), Inches(2), Inches(6), Inches(2)).table
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                table.cell(r, c).text = text

    return draw


def with_chart(title: str, chart_title: str, categories: list[str], series: dict[str, list[float]]):
    """A slide with a clustered column chart; python-pptx writes the values the chart shows into it."""

    def draw(presentation) -> None:
        slide = presentation.slides.add_slide(presentation.slide_layouts[TITLE_ONLY])
        slide.shapes.title.text = title
        data = CategoryChartData()
        data.categories = categories
        for name, values in series.items():
            data.add_series(name, values)
        chart = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(6), Inches(4),
                                       data).chart
        chart.has_title = True
        chart.chart_title.text_frame.text = chart_title

    return draw


def untitled_group(*texts: str):
    """A slide with no title: text boxes in a group, inside another group."""

    def draw(presentation) -> None:
        slide = presentation.slides.add_slide(presentation.slide_layouts[BLANK])
        inner = slide.shapes.add_group_shape().shapes.add_group_shape()
        for n, text in enumerate(texts):
            inner.shapes.add_textbox(Inches(1), Inches(1 + n), Inches(4), Inches(1)).text_frame.text = text

    return draw


def blank(presentation) -> None:
    presentation.slides.add_slide(presentation.slide_layouts[BLANK])


def xlsx_of(sheets: dict[str, Rows]) -> bytes:
    """A workbook of these sheets (openpyxl), rows from row 1 and values from column A; None is an
    empty cell."""
    workbook = openpyxl.Workbook()
    workbook.remove(workbook.active)
    for name, rows in sheets.items():
        sheet = workbook.create_sheet(name)
        for r, row in enumerate(rows, start=1):
            for c, value in enumerate(row, start=1):
                if value is not None:
                    sheet.cell(r, c, value)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def xlsx_with_a_formula() -> bytes:
    """Stock: a formula (=B2*C2) whose cached value is 1404, and a date, as Excel saves them."""
    buffer = io.BytesIO()
    workbook = xlsxwriter.Workbook(buffer, {"in_memory": True})
    sheet = workbook.add_worksheet("Stock")
    sheet.write_row(0, 0, ["Item", "Units", "Price", "Value", "Counted"])
    sheet.write_row(1, 0, ["Anchor chain", 312, 4.5])
    sheet.write_formula(1, 3, "=B2*C2", None, 1404)
    sheet.write_datetime(1, 4, datetime.datetime(2024, 3, 12), workbook.add_format({"num_format": "dd/mm/yyyy"}))
    workbook.close()
    return buffer.getvalue()


def ods_of(sheets: dict[str, Rows]) -> bytes:
    """An OpenDocument spreadsheet of these sheets (odfpy). A value may be a str, int, float, date,
    None (an empty cell) or ("of:=formula", cached value)."""
    document = OpenDocumentSpreadsheet()
    for name, rows in sheets.items():
        table = Table(name=name)
        for row in rows:
            table_row = TableRow()
            for value in row:
                table_row.addElement(_ods_cell(value))
            table.addElement(table_row)
        document.spreadsheet.addElement(table)
    buffer = io.BytesIO()
    document.write(buffer)
    return buffer.getvalue()


def _ods_cell(value: object) -> TableCell:
    if value is None:
        return TableCell()
    if isinstance(value, tuple):
        formula, cached = value
        cell = TableCell(valuetype="float", value=cached, formula=formula)
        shown = str(cached)
    elif isinstance(value, datetime.date):
        cell = TableCell(valuetype="date", datevalue=value.isoformat())
        shown = f"{value:%d/%m/%Y}"
    elif isinstance(value, (int, float)):
        cell, shown = TableCell(valuetype="float", value=value), str(value)
    else:
        cell, shown = TableCell(valuetype="string"), str(value)
    cell.addElement(P(text=shown))
    return cell


def delimited(rows: Rows, delimiter: str = ",") -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter).writerows([["" if v is None else v for v in row] for row in rows])
    return buffer.getvalue().encode()


def with_part(data: bytes, member: str, content: bytes) -> bytes:
    """The zip with `member` replaced (or added)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            if info.filename != member:
                archive.writestr(info, source.read(info))
        archive.writestr(member, content)
    return buffer.getvalue()


def padded(data: bytes, megabytes: int) -> bytes:
    """The zip with a part of `megabytes` zero bytes added, as a bomb would carry."""
    return with_part(data, "media/padding.bin", bytes(megabytes * 1024 * 1024))


# A password-protected Office file is an OLE compound file (signature first) whose directory
# holds the stream EncryptedPackage; a .xls of before 2007 is a compound file without it.
COMPOUND_FILE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)


def encrypted_office_file() -> bytes:
    return COMPOUND_FILE + "EncryptedPackage".encode("utf-16-le") + bytes(4096)


def old_binary_office_file() -> bytes:
    return COMPOUND_FILE + "Workbook".encode("utf-16-le") + bytes(4096)


def encrypted_ods(data: bytes) -> bytes:
    """The .ods as a password saves it: its manifest lists how content.xml was encrypted, and that
    part is no longer XML."""
    manifest = zipfile.ZipFile(io.BytesIO(data)).read("META-INF/manifest.xml").decode()
    entry = ('<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">'
             '<manifest:encryption-data manifest:checksum-type="SHA1/1K" manifest:checksum="AAAA">'
             '<manifest:algorithm manifest:algorithm-name="Blowfish CFB" manifest:initialisation-vector="AAAA"/>'
             '</manifest:encryption-data></manifest:file-entry>')
    locked = with_part(data, "META-INF/manifest.xml", manifest.replace("</manifest:manifest>",
                                                                       entry + "</manifest:manifest>").encode())
    return with_part(locked, "content.xml", bytes(range(256)) * 16)
