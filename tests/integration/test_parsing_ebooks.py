"""E-books (.epub) through the real parser: zips written here with zipfile, chapters in the
spine's order, titled as the book's table of contents has them; bad books refused in one line,
nothing fetched."""

from __future__ import annotations

import io
import zipfile

import pytest

from docchat.documents.kinds.ebooks import read_epub
from docchat.documents.parsing import parse
from docchat.errors import InvalidInput

from tests.hostile_files import MB, Listener, zip_bomb

CONTAINER = """<?xml version="1.0" encoding="UTF-8"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""
NAV = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title>
</head><body><nav epub:type="landmarks"><ol><li><a href="text/harbour.xhtml">Begin reading</a></li></ol></nav>
<nav epub:type="toc"><ol>
<li><a href="text/harbour.xhtml">I. The Harbour Street Trust</a>
  <ol><li><a href="text/harbour.xhtml#deed">The deed itself</a></li></ol></li>
<li><a href="text/reserve.xhtml#start">II. The Reserve Account</a></li>
</ol></nav></body></html>"""
CHAPTERS = {
    "OEBPS/text/harbour.xhtml": "<h1>Chapter One</h1><p>The Trust was settled in Lisbon in 1897.</p>",
    "OEBPS/text/reserve.xhtml": "<h1>Chapter Two</h1><p>The Reserve Account covers every shortfall.</p>",
    "OEBPS/text/landfall.xhtml": "<h2>Landfall at Madeira</h2><p>The trustees met at Funchal.</p>",
    "OEBPS/text/coda.xhtml": "<p>No heading here, only the last words of the Trustee.</p>",
}


def chapter(body: str) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml">'
            f"<head><title>The Harbour Street Trust</title></head><body>{body}</body></html>")


def package(spine: str, *, nav: bool = True, extra: str = "") -> str:
    items = "".join(f'<item id="{name}" href="text/{name}.xhtml" media-type="application/xhtml+xml"/>'
                    for name in ("coda", "landfall", "reserve", "harbour"))
    nav_item = '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>' if nav else ""
    return f"""<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>The Harbour Street Trust</dc:title></metadata>
<manifest>{nav_item}{items}<item id="cover" href="cover.jpg" media-type="image/jpeg"/>{extra}</manifest>
{spine}</package>"""


SPINE = '<spine><itemref idref="harbour"/><itemref idref="reserve"/><itemref idref="landfall"/><itemref idref="coda"/></spine>'


def epub_of(files: dict[str, str | bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def book(*, opf: str | None = None, nav: str | None = NAV, more: dict[str, str | bytes] | None = None) -> bytes:
    files: dict[str, str | bytes] = {"META-INF/container.xml": CONTAINER,
                                     "OEBPS/content.opf": opf or package(SPINE, nav=nav is not None)}
    if nav is not None:
        files["OEBPS/nav.xhtml"] = nav
    files.update({name: chapter(body) for name, body in CHAPTERS.items()})
    files.update(more or {})
    return epub_of(files)


def reason(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_an_epub_gives_a_section_per_chapter_in_reading_order_titled_by_its_table_of_contents():
    document = parse("harbour-street.epub", book())

    assert document.kind == "epub"
    assert [(section.label, section.page) for section in document.sections] == [
        ("I. The Harbour Street Trust", None),
        ("II. The Reserve Account", None),
        ("Landfall at Madeira", None),
        ("chapter 4", None),
    ]
    assert "settled in Lisbon in 1897" in document.sections[0].text
    assert "covers every shortfall" in document.sections[1].text
    assert "Lisbon" not in document.sections[1].text


def test_the_parser_gives_the_same_sections_when_called_directly():
    sections = read_epub('"harbour-street.epub"', book(), 50 * MB).sections

    assert [section.label for section in sections][:2] == ["I. The Harbour Street Trust", "II. The Reserve Account"]


def test_a_chapter_keeps_its_headings_and_loses_the_book_title_its_head_repeats():
    first = parse("harbour-street.epub", book()).sections[0]

    assert first.text == "Chapter One\n\nThe Trust was settled in Lisbon in 1897."


def test_an_epub_2_book_takes_its_chapter_titles_from_its_ncx():
    ncx = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE ncx PUBLIC "-//NISO//DTD ncx 2005-1//EN" "http://www.daisy.org/z3986/2005/ncx-2005-1.dtd">
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1"><navMap>
<navPoint id="p1" playOrder="1"><navLabel><text>One: The Trust</text></navLabel><content src="text/harbour.xhtml"/></navPoint>
<navPoint id="p2" playOrder="2"><navLabel><text>Two: The Account</text></navLabel><content src="text/reserve.xhtml"/>
</navPoint></navMap></ncx>"""
    opf = package(SPINE.replace("<spine>", '<spine toc="ncx">'), nav=False,
                  extra='<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>')

    document = parse("trust.epub", book(opf=opf, nav=None, more={"OEBPS/toc.ncx": ncx}))

    assert [section.label for section in document.sections] == [
        "One: The Trust", "Two: The Account", "Landfall at Madeira", "chapter 4"]


def test_without_a_table_of_contents_chapters_are_named_by_their_first_heading_or_their_place():
    document = parse("trust.epub", book(nav=None))

    assert [section.label for section in document.sections] == [
        "Chapter One", "Chapter Two", "Landfall at Madeira", "chapter 4"]


def test_items_left_out_of_the_spine_are_not_read():
    spine = '<spine><itemref idref="reserve"/><itemref idref="harbour"/></spine>'

    document = parse("trust.epub", book(opf=package(spine)))

    assert [section.label for section in document.sections] == ["II. The Reserve Account", "I. The Harbour Street Trust"]


# Refusals


def test_an_epub_with_no_spine_is_refused():
    with pytest.raises(InvalidInput) as error:
        parse("unbound.epub", book(opf=package("")))

    assert reason(error) == '"unbound.epub" has no chapters to read: its spine lists none'


def test_a_zip_that_is_not_an_epub_is_refused():
    with pytest.raises(InvalidInput) as error:
        parse("photos.epub", epub_of({"holiday/beach.txt": "sand"}))

    assert reason(error) == '"photos.epub" is not an e-book: it has no META-INF/container.xml naming its package'


@pytest.mark.parametrize("damage", ["cut in half", "text renamed", "random bytes"])
def test_a_damaged_epub_is_refused(damage):
    data = {"cut in half": book()[: len(book()) // 2], "text renamed": b"Chapter One: the Trust was settled.",
            "random bytes": bytes(range(256)) * 16}[damage]

    with pytest.raises(InvalidInput) as error:
        parse("voyage.epub", data)

    assert reason(error) == '"voyage.epub" is not a readable e-book (.epub)'


def test_an_epub_that_unpacks_to_far_more_than_the_limit_is_refused():
    data = zip_bomb("OEBPS/text/harbour.xhtml", 4 * MB, also={"META-INF/container.xml": CONTAINER.encode()})

    with pytest.raises(InvalidInput) as error:
        parse("bomb.epub", data, max_bytes=100 * 1024)

    assert reason(error) == '"bomb.epub" unpacks to 4 MB, too much for an e-book'


def test_an_epub_that_lies_about_its_size_is_refused_without_unpacking_it():
    data = zip_bomb("OEBPS/text/harbour.xhtml", 64 * MB, declared=1000, also={
        "META-INF/container.xml": CONTAINER.encode(), "OEBPS/content.opf": package(SPINE, nav=False).encode()})

    with pytest.raises(InvalidInput) as error:
        parse("liar.epub", data, max_bytes=100 * 1024)

    assert reason(error) == '"liar.epub" is not a readable e-book (.epub)'


def test_a_spine_that_reads_one_chapter_over_and_over_is_stopped_at_the_unpacking_limit():
    spine = "<spine>" + '<itemref idref="harbour"/>' * 3000 + "</spine>"
    padded = {"OEBPS/text/harbour.xhtml": chapter("<p>The Trust was settled in Lisbon.</p>" * 250)}

    with pytest.raises(InvalidInput) as error:
        parse("echo.epub", book(opf=package(spine), more=padded), max_bytes=20 * 1024)

    assert reason(error) == '"echo.epub" unpacks to more than 400 KB, too much for an e-book'


def encryption(uri: str, algorithm: str) -> str:
    return f"""<?xml version="1.0"?><encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="{algorithm}"/>
<enc:CipherData><enc:CipherReference URI="{uri}"/></enc:CipherData></enc:EncryptedData></encryption>"""


def test_an_epub_whose_chapters_are_encrypted_is_refused_as_drm_protected():
    drm = encryption("OEBPS/text/reserve.xhtml", "http://www.w3.org/2001/04/xmlenc#aes128-cbc")

    with pytest.raises(InvalidInput) as error:
        parse("bestseller.epub", book(more={"META-INF/encryption.xml": drm}))

    assert reason(error) == '"bestseller.epub" is protected by DRM (its chapters are encrypted)'


def test_a_chapter_of_binary_bytes_is_refused_as_not_text():
    scrambled = {"OEBPS/text/reserve.xhtml": bytes(range(256)) * 64}

    with pytest.raises(InvalidInput) as error:
        parse("scrambled.epub", book(more=scrambled))

    assert reason(error) == '"scrambled.epub" has a chapter that is not text (encrypted or damaged?)'


def test_obfuscated_fonts_are_not_mistaken_for_drm():
    fonts = encryption("OEBPS/fonts/garamond.otf", "http://www.idpf.org/2008/embedding")

    document = parse("typeset.epub", book(more={"META-INF/encryption.xml": fonts}))

    assert len(document.sections) == 4


def test_a_password_protected_zip_is_refused():
    data = bytearray(book())
    # Set the "encrypted" flag of every entry, in the local headers and the central directory.
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        while at != -1:
            data[at + offset] |= 0x01
            at = data.find(signature, at + 4)

    with pytest.raises(InvalidInput) as error:
        parse("locked.epub", bytes(data))

    assert reason(error) == '"locked.epub" is password-protected'


def test_a_package_that_expands_entities_a_billion_times_is_refused():
    entities = '<!ENTITY lol0 "lol">' + "".join(
        f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">' for n in range(1, 11))
    opf = package(SPINE).replace("<package", f"<!DOCTYPE package [{entities}]><package", 1)
    opf = opf.replace("<dc:title>The Harbour Street Trust", "<dc:title>&lol10;")

    with pytest.raises(InvalidInput) as error:
        parse("laughs.epub", book(opf=opf))

    assert reason(error) == '"laughs.epub" is not a readable e-book (.epub)'


def test_an_epub_that_points_outside_itself_fetches_nothing():
    with Listener() as listener:
        remote = (f'<link rel="stylesheet" href="{listener.url}/style.css"/><img src="{listener.url}/pixel.gif"/>'
                  f'<p>The Trust keeps a <a href="{listener.url}/account">Reserve Account</a>.</p>')
        extra = (f'<item id="far" href="{listener.url}/chapter.xhtml" media-type="application/xhtml+xml"/>'
                 '<item id="up" href="../../../etc/passwd" media-type="application/xhtml+xml"/>')
        spine = '<spine><itemref idref="far"/><itemref idref="up"/><itemref idref="harbour"/></spine>'
        nav = NAV.replace("text/reserve.xhtml#start", f"{listener.url}/toc")
        files = {"META-INF/container.xml": CONTAINER, "OEBPS/content.opf": package(spine, extra=extra),
                 "OEBPS/nav.xhtml": nav, "OEBPS/text/harbour.xhtml": chapter(remote)}

        document = parse("tracked.epub", epub_of(files))

    assert [section.label for section in document.sections] == ["I. The Harbour Street Trust"]
    assert "The Trust keeps a Reserve Account." in document.sections[0].text
    assert listener.requests == []


PRICES = ("<h1>Prices</h1><p>What the harbour charged in 1897.</p><table>"
          "<tr><th>Berth</th><th>Fee</th></tr><tr><td>North quay</td><td>1,200</td></tr>"
          "<tr><td>South quay</td><td>850</td></tr><tr><td>Total</td><td>2,050</td></tr></table>")


def test_a_chapters_tables_are_kept_as_tables_named_by_the_chapter():
    read = parse("trust.epub", book(more={"OEBPS/text/reserve.xhtml": chapter(PRICES)}))

    [table] = read.tables
    assert table.sheet == "II. The Reserve Account, table 1"
    assert [column.name for column in table.columns] == ["Berth", "Fee"]
    assert [(row.cells, row.kind.value) for row in table.rows] == [
        (("North quay", "1,200"), "row"), (("South quay", "850"), "row"), (("Total", "2,050"), "total")]
    assert "North quay" in read.sections[1].text  # the table's text is still the chapter's


def test_two_chapters_of_one_title_name_their_tables_by_their_number_too():
    opf = package('<spine><itemref idref="landfall"/><itemref idref="coda"/></spine>', nav=False)
    same = PRICES.replace("<h1>Prices</h1>", "<h2>Prices</h2>")
    read = parse("trust.epub", book(opf=opf, nav=None, more={"OEBPS/text/landfall.xhtml": chapter(same),
                                                          "OEBPS/text/coda.xhtml": chapter(same)}))

    assert [table.sheet for table in read.tables] == ["Prices, table 1", "Prices, table 1 (chapter 2)"]
