"""Hostile documents, made in the tests, and a listener that records any request one makes.

PDFs are written by hand (no library writes a page tree that loops or a stream that inflates to
gigabytes); their compressed streams are built a megabyte at a time, so a 2 GB bomb costs the
test 2 MB. DOCX files start from python-docx's own and have their parts replaced; slides and
spreadsheets from those of tests/office_files.py.
"""

from __future__ import annotations

import io
import re
import struct
import threading
import zipfile
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import docx

from tests.network import free_port
from tests.office_files import ods_of, pptx_of, titled, with_part, xlsx_of

MB = 1024 * 1024
GB = 1024 * MB
_FONT = b"/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>"


def pdf_of_objects(objects: list[bytes]) -> bytes:
    """A PDF of these object bodies, numbered from 1; object 1 is the catalogue."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def deflated_zeros(size: int, *, raw: bool = False) -> bytes:
    """A zlib stream (or, `raw`, a bare deflate stream as in a zip) that inflates to `size` zero
    bytes (a multiple of 1 MB), built from one compressed megabyte repeated: each is flushed
    whole, so every one after the first is alike."""
    compressor, megabyte = zlib.compressobj(9, zlib.DEFLATED, -15 if raw else 15), bytes(MB)
    first = compressor.compress(megabyte) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(megabyte) + compressor.flush(zlib.Z_FULL_FLUSH)
    # An empty final stored block, then (zlib) the checksum of everything.
    stream = first + again * (size // MB - 1) + b"\x01\x00\x00\xff\xff"
    return stream if raw else stream + _of_zeros(size, zlib.adler32, 1).to_bytes(4, "big")


def _of_zeros(size: int, checksum, start: int) -> int:
    """adler32 or crc32 of `size` zero bytes, a megabyte at a time."""
    megabyte, value = bytes(MB), start
    for _ in range(size // MB):
        value = checksum(megabyte, value)
    return value


def _stream(data: bytes) -> bytes:
    return b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(data), data)


def pdf_of_pages(contents: list[int], streams: list[bytes]) -> bytes:
    """A PDF whose page n draws streams[contents[n]]."""
    first_stream = 3 + len(contents)
    kids = b" ".join(b"%d 0 R" % (3 + n) for n in range(len(contents)))
    return pdf_of_objects([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(contents)),
        *(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] %s /Contents %d 0 R >>"
          % (_FONT, first_stream + stream) for stream in contents),
        *(_stream(data) for data in streams),
    ])


def inflating_pdf(size: int = 2 * GB) -> bytes:
    """One page whose content stream inflates to `size` bytes of zeros."""
    return pdf_of_pages([0], [deflated_zeros(size)])


def pdf_of_pages_sharing_a_stream(pages: int, size: int = 70 * MB) -> bytes:
    """`pages` pages that all draw one stream inflating to `size`, just under pypdf's own limit
    per stream: each page inflates it again, so the work grows with the pages, not the file."""
    return pdf_of_pages([0] * pages, [deflated_zeros(size)])


def pdf_of_pages_with_their_own_streams(pages: int, size: int = 70 * MB) -> bytes:
    """`pages` pages, each with its own stream inflating to `size`: pypdf keeps each inflated."""
    stream = deflated_zeros(size)
    return pdf_of_pages(list(range(pages)), [stream] * pages)


def looping_pdf() -> bytes:
    """A page tree whose root lists itself among its kids."""
    return pdf_of_objects([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
    ])


# zip archives written by hand


def zip_bomb(name: str, size: int, *, declared: int | None = None, also: dict[str, bytes] | None = None) -> bytes:
    """A zip whose entry `name` inflates to `size` zero bytes and says it unpacks to `declared`
    (by default, the truth), after the entries of `also`."""
    entries = [(entry, zlib.compress(data, 9, wbits=-15), zlib.crc32(data), len(data), len(data))
               for entry, data in (also or {}).items()]
    entries.append((name, deflated_zeros(size, raw=True), _of_zeros(size, zlib.crc32, 0), size,
                    size if declared is None else declared))
    return zip_of_raw_entries(entries)


def zip_of_raw_entries(entries: list[tuple[str, bytes, int, int, int]], *, external_attr: int = 0) -> bytes:
    """A zip of (name, deflated bytes, crc32, size, declared size) entries, headers and all."""
    out, central = io.BytesIO(), io.BytesIO()
    for name, data, crc, _, declared in entries:
        encoded, offset = name.encode(), out.tell()
        fields = struct.pack("<HHHHHIII", 20, 0, 8, 0, 0x21, crc, len(data), declared)
        out.write(b"PK\x03\x04" + fields + struct.pack("<HH", len(encoded), 0) + encoded + data)
        central.write(b"PK\x01\x02" + struct.pack("<H", 0x0314) + fields
                      + struct.pack("<HHHHHII", len(encoded), 0, 0, 0, 0, external_attr, offset) + encoded)
    start = out.tell()
    out.write(central.getvalue())
    out.write(b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, len(entries), len(entries), len(central.getvalue()),
                                            start, 0))
    return out.getvalue()


# Word documents

W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'


def plain_docx(text: str) -> bytes:
    document = docx.Document()
    document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def docx_with_parts(replaced: dict[str, bytes], text: str = "The Determination Date is the 15th.") -> bytes:
    """python-docx's DOCX of `text`, with the parts named in `replaced` (added if absent)."""
    source = zipfile.ZipFile(io.BytesIO(plain_docx(text)))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            archive.writestr(info.filename, replaced.get(info.filename, source.read(info)))
        for name in replaced.keys() - set(source.namelist()):
            archive.writestr(name, replaced[name])
    return buffer.getvalue()


def _body(doctype: str, text: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8" standalone="no"?>{doctype}'
            f'<w:document {W} {R}><w:body><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:body></w:document>').encode()


def billion_laughs_docx() -> bytes:
    """document.xml of ten levels of entities, each ten of the one below: 10^10 "lol"s expanded."""
    entities = '<!ENTITY lol0 "lol">' + "".join(
        f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 11))
    return docx_with_parts({"word/document.xml": _body(f"<!DOCTYPE w:document [{entities}]>",
                                                         "The Trustee laughs: &lol10;")})


def external_entity_docx(url: str) -> bytes:
    """document.xml whose text is an external entity at `url`, and a parameter entity too."""
    doctype = (f'<!DOCTYPE w:document [<!ENTITY secret SYSTEM "{url}/entity">'
               f'<!ENTITY % remote SYSTEM "{url}/dtd"> %remote;]>')
    return docx_with_parts({"word/document.xml": _body(doctype, "The Trustee writes: &secret;")})


def external_relationship_docx(url: str) -> bytes:
    """A DOCX whose relationships point outside it (TargetMode External): a hyperlink, a linked
    image and an attached template, as a tracking document would."""
    text = "The Reserve Account is kept with the Account Bank."
    source = zipfile.ZipFile(io.BytesIO(plain_docx(text)))
    rels = source.read("word/_rels/document.xml.rels").decode()
    types = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    external = "".join(
        f'<Relationship Id="rIdOut{n}" Type="{types}/{kind}" Target="{url}/{kind}" TargetMode="External"/>'
        for n, kind in enumerate(("hyperlink", "image", "attachedTemplate", "oleObject")))
    settings_rels = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships '
                     'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdT" '
                     'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/attachedTemplate" '
                     f'Target="{url}/template.dotm" TargetMode="External"/></Relationships>')
    return docx_with_parts({"word/_rels/document.xml.rels": rels.replace("</Relationships>", external
                                                                          + "</Relationships>").encode(),
                            "word/_rels/settings.xml.rels": settings_rels.encode()}, text)


# Slides and spreadsheets

_RELATIONSHIPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def _with_external_relationships(data: bytes, rels: str, url: str, kinds: tuple[str, ...]) -> bytes:
    """The zip with relationships of these kinds pointing to `url` added to its part `rels`."""
    source = zipfile.ZipFile(io.BytesIO(data))
    existing = (source.read(rels).decode() if rels in source.namelist() else
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships '
                'xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>')
    external = "".join(f'<Relationship Id="rIdOut{n}" Type="{_RELATIONSHIPS}/{kind}" Target="{url}/{kind}" '
                       'TargetMode="External"/>' for n, kind in enumerate(kinds))
    return with_part(data, rels, existing.replace("</Relationships>", external + "</Relationships>").encode())


def external_relationship_pptx(url: str) -> bytes:
    """A slide whose text links to `url`, and whose relationships also point there: a linked
    picture, a linked OLE object and a linked video."""

    def draw(presentation) -> None:
        titled("Reserve Account", "The Trustee keeps a Reserve Account with the Account Bank.")(presentation)
        run = presentation.slides[0].placeholders[1].text_frame.paragraphs[0].runs[0]
        run.hyperlink.address = f"{url}/hyperlink"

    return _with_external_relationships(pptx_of(draw), "ppt/slides/_rels/slide1.xml.rels", url,
                                        ("image", "oleObject", "video"))


def external_link_xlsx(url: str) -> bytes:
    """A workbook linked to another one at `url` (an external link, as formulas that refer to
    another workbook make), with a hyperlink there on its sheet."""
    workbook = xlsx_of({"Reserve": [["Account", "Bank"], ["Reserve Account", "Account Bank"]]})
    linked = _with_external_relationships(workbook, "xl/_rels/workbook.xml.rels", url, ("externalLink",))
    return _with_external_relationships(linked, "xl/worksheets/_rels/sheet1.xml.rels", url, ("hyperlink",))


def billion_laughs_in(data: bytes, member: str, text: str) -> bytes:
    """The zip with `text` in its XML part `member` replaced by ten levels of entities, each ten of
    the one below (10^10 "lol"s expanded), declared in a DOCTYPE before its root."""
    xml = zipfile.ZipFile(io.BytesIO(data)).read(member).decode()
    xml = re.sub(r"^<\?xml[^>]*\?>\s*", "", xml)
    root = re.match(r"<([\w:.-]+)", xml).group(1)
    entities = '<!ENTITY lol0 "lol">' + "".join(
        f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 11))
    laughs = f'<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE {root} [{entities}]>' + xml.replace(text, "&lol10;", 1)
    return with_part(data, member, laughs.encode())


def ods_of_repeated_cells(rows: int, columns: int) -> bytes:
    """An .ods of a few kilobytes whose one row, repeated `rows` times, repeats a cell with a value
    `columns` times: a grid of rows x columns cells for a reader that spells repeats out."""
    data = ods_of({"Inventory": [["Item"], ["Anchor chain"]]})
    content = zipfile.ZipFile(io.BytesIO(data)).read("content.xml").decode()
    repeated = (f'<table:table-row table:number-rows-repeated="{rows}"><table:table-cell '
                f'table:number-columns-repeated="{columns}" office:value-type="string"><text:p>x</text:p>'
                '</table:table-cell></table:table-row>')
    return with_part(data, "content.xml", content.replace("</table:table>", repeated + "</table:table>", 1).encode())


def remote_resources_html(url: str) -> bytes:
    return f"""<!doctype html><html><head>
<title>Harbour Street Trust</title>
<link rel="stylesheet" href="{url}/style.css"><link rel="icon" href="{url}/favicon.ico">
<script src="{url}/tracker.js"></script><meta http-equiv="refresh" content="0; url={url}/refresh">
<style>@import url("{url}/import.css"); body {{ background: url({url}/background.png) }}</style>
</head><body>
<h1>Reserve Account</h1>
<p>The Trustee keeps a Reserve Account with the Account Bank.<img src="{url}/pixel.gif" srcset="{url}/big.gif 2x"></p>
<iframe src="{url}/frame"></iframe><object data="{url}/object"></object><video poster="{url}/poster.jpg"></video>
</body></html>""".encode()


class Listener:
    """A tiny HTTP server on 127.0.0.1 that records the path of every request it gets."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        requests = self.requests

        class Record(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                requests.append(self.path)
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"The secret is 42.")

            def log_message(self, *args) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", free_port()), Record)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> "Listener":
        threading.Thread(target=self._server.serve_forever, name="listener", daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()
