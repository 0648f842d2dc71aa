"""Mail through the real parsers: .eml files made here with the standard library's email package,
and .msg files written from the same messages by aspose-email-foss. The headers stay with the
body, attachments are named, long mails are split, bad files refused in one line."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from docchat.documents.kinds.mail import read_eml
from docchat.documents.parsing import parse
from docchat.errors import InvalidInput

from tests.hostile_files import MB, Listener

REPLY = """Charles,

The drawings of the Analytical Engine are attached, with the costs you asked for.

On Monday 11 March 2024, Charles Babbage wrote:
> Could you send the drawings before the Society meets?
> The mill must be shown in section.
"""


def mail(body: str | None = REPLY, *, subject: str | None = "Engine drawings", html: str | None = None,
         attachments: tuple[str, ...] = ()) -> EmailMessage:
    message = EmailMessage()
    message["From"] = "Ada Lovelace <ada@example.org>"
    message["To"] = "Charles Babbage <charles@example.org>"
    message["Cc"] = "Mary Somerville <mary@example.org>"
    message["Date"] = "Tue, 12 Mar 2024 10:30:00 +0000"
    if subject is not None:
        message["Subject"] = subject
    if body is not None:
        message.set_content(body)
    if html is not None:
        (message.add_alternative if body is not None else message.set_content)(html, subtype="html")
    for name in attachments:
        message.add_attachment(b"%PDF-1.4 drawings", maintype="application", subtype="octet-stream", filename=name)
    return message


def outlook(message: EmailMessage) -> bytes:
    from aspose.email_foss.msg import MapiMessage

    return MapiMessage.from_email_message(message).to_bytes()


def reason(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_a_mail_is_one_section_labelled_by_its_subject_with_its_headers_before_its_body():
    document = parse("drawings.eml", bytes(mail()))

    assert document.kind == "email"
    [section] = document.sections
    assert (section.label, section.page) == ("Engine drawings", None)
    assert section.text.startswith(
        "From: Ada Lovelace <ada@example.org>\n"
        "To: Charles Babbage <charles@example.org>\n"
        "Cc: Mary Somerville <mary@example.org>\n"
        "Date: Tue, 12 Mar 2024 10:30:00 +0000\n"
        "Subject: Engine drawings\n\n"
        "Charles,\n\nThe drawings of the Analytical Engine are attached")


def test_the_quoted_mail_it_replies_to_is_kept():
    [section] = parse("drawings.eml", bytes(mail())).sections

    assert section.text.endswith("> Could you send the drawings before the Society meets?\n"
                                 "> The mill must be shown in section.")


def test_attachments_are_named_with_the_headers_but_not_read():
    [section] = parse("drawings.eml", bytes(mail(attachments=("engine-plans.pdf", "costs.xlsx")))).sections

    assert "Subject: Engine drawings\nAttachments: engine-plans.pdf, costs.xlsx\n\nCharles," in section.text
    assert "PDF-1.4" not in section.text


def test_the_plain_text_is_read_when_the_mail_also_has_html():
    [section] = parse("drawings.eml", bytes(mail(html="<p>The <b>HTML</b> copy of the drawings.</p>"))).sections

    assert "Analytical Engine" in section.text
    assert "HTML" not in section.text


def test_a_mail_in_html_only_is_read_as_text_and_fetches_nothing():
    with Listener() as listener:
        html = (f'<html><head><meta charset="iso-8859-1"><link rel="stylesheet" href="{listener.url}/a.css">'
                f'</head><body><h1>Zürich office</h1><p>The café opens at <b>nine</b>.'
                f'<img src="{listener.url}/pixel.gif"></p><script>track()</script></body></html>')

        [section] = parse("opening.eml", bytes(mail(None, subject="Opening hours", html=html))).sections

    assert section.text.endswith("Subject: Opening hours\n\nZürich office\n\nThe café opens at nine.")
    assert listener.requests == []


def test_a_long_mail_goes_on_in_sections_cut_between_paragraphs():
    paragraphs = [f"Item {n}: the mill and the store must be drawn to scale. " * 12 for n in range(1, 31)]

    sections = parse("minutes.eml", bytes(mail("\n\n".join(paragraphs), subject="Minutes of the Society"))).sections

    assert len(sections) > 2
    assert [section.label for section in sections[:3]] == [
        "Minutes of the Society", "Minutes of the Society, part 2", "Minutes of the Society, part 3"]
    assert sections[0].text.startswith("From: Ada Lovelace")
    assert not any(section.text.startswith("From:") for section in sections[1:])
    assert [p.strip() for section in sections for p in section.text.split("\n\n")][1:] == [
        p.strip() for p in paragraphs]


def test_a_mail_without_a_subject_is_labelled_message():
    [section] = parse("note.eml", bytes(mail("See you at the Society.", subject=None))).sections

    assert section.label == "message"


def test_encoded_headers_are_read_as_the_sender_wrote_them():
    message = mail(subject="Réunion à Zürich — ordre du jour")
    message.replace_header("From", "Émilie du Châtelet <emilie@example.org>")

    [section] = parse("reunion.eml", message.as_bytes()).sections

    assert b"=?utf-8?" in message.as_bytes()
    assert section.label == "Réunion à Zürich — ordre du jour"
    assert section.text.startswith("From: Émilie du Châtelet <emilie@example.org>\n")


def test_raw_latin1_bytes_in_a_header_become_replacement_characters_not_unstorable_text():
    data = b"From: ada@example.org\nSubject: Caf\xe9 meeting\n\nThe Society meets at the caf\xe9.\n"

    [section] = parse("cafe.eml", data).sections

    assert section.label == "Caf\ufffd meeting"
    assert section.text.endswith("The Society meets at the caf\ufffd.")


def test_the_parser_gives_the_same_sections_when_called_directly():
    [section] = read_eml('"drawings.eml"', bytes(mail()), 50 * MB).sections

    assert section.label == "Engine drawings"


# Outlook


def test_an_outlook_message_is_read_as_the_same_mail_would_be():
    message = mail(attachments=("engine-plans.pdf",))

    document = parse("drawings.msg", outlook(message))

    assert document.kind == "outlook"
    assert [(s.label, s.text) for s in document.sections] == [
        (s.label, s.text) for s in parse("drawings.eml", bytes(message)).sections]


@pytest.mark.parametrize("data", [b"Subject: not really Outlook\n\nHello", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" * 64])
def test_a_file_that_is_not_an_outlook_message_is_refused(data):
    with pytest.raises(InvalidInput) as error:
        parse("drawings.msg", data)

    assert reason(error) == '"drawings.msg" is not a readable Outlook message (.msg)'


def test_an_outlook_message_cut_short_is_refused():
    data = outlook(mail())

    with pytest.raises(InvalidInput) as error:
        parse("drawings.msg", data[: len(data) // 2])

    assert reason(error) == '"drawings.msg" is not a readable Outlook message (.msg)'


# Refusals


def test_an_empty_mail_is_refused():
    with pytest.raises(InvalidInput) as error:
        parse("blank.eml", bytes(mail(None, subject=None)))

    assert reason(error) == '"blank.eml" is an empty message (no subject, text or attachment)'


def test_a_text_file_renamed_eml_is_refused():
    with pytest.raises(InvalidInput) as error:
        parse("notes.eml", b"Remember to send the drawings to Charles.\n")

    assert reason(error) == '"notes.eml" is not an e-mail message (it has no From, To, Date or Subject)'


def test_a_binary_file_renamed_eml_is_refused():
    with pytest.raises(InvalidInput) as error:
        parse("setup.eml", b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00" * 40)

    assert reason(error) == '"setup.eml" looks like a binary file, not text'


def test_an_encrypted_mail_is_refused():
    message = mail(None)
    message.set_content(b"\x30\x80\x06\x09encrypted", maintype="application", subtype="pkcs7-mime",
                        params={"smime-type": "enveloped-data"}, filename="smime.p7m")

    with pytest.raises(InvalidInput) as error:
        parse("secret.eml", bytes(message))

    assert reason(error) == '"secret.eml" is encrypted (S/MIME or OpenPGP); docchat cannot read it'


def test_a_mail_nested_beyond_reason_is_refused():
    boundary_open = "".join(f'Content-Type: multipart/mixed; boundary="b{n}"\n\n--b{n}\n' for n in range(3000))
    data = ("From: ada@example.org\nSubject: Russian dolls\nMIME-Version: 1.0\n" + boundary_open).encode()

    with pytest.raises(InvalidInput) as error:
        parse("dolls.eml", data)

    assert reason(error) == '"dolls.eml" is not a readable e-mail message (.eml)'


COSTS = ("<p>The costs you asked for:</p><table><tr><th>Part</th><th>Cost</th></tr>"
         "<tr><td>Mill</td><td>£1,150</td></tr><tr><td>Store</td><td>£640</td></tr></table>")


@pytest.mark.parametrize("plain", [REPLY, None], ids=["beside a plain-text body", "html only"])
def test_the_tables_of_a_mails_html_are_kept_as_tables_named_by_its_subject(plain):
    read = parse("drawings.eml", bytes(mail(plain, html=COSTS)))

    [table] = read.tables
    assert table.sheet == "Engine drawings, table 1"
    assert [row.cells for row in table.rows] == [("Mill", "£1,150"), ("Store", "£640")]
    assert [column.type.value for column in table.columns] == ["text", "real"]  # money


def test_a_mail_without_html_has_no_tables():
    assert parse("drawings.eml", bytes(mail())).tables == ()
