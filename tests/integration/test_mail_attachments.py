"""A mail's attachments of a kind docchat reads become documents of their own, named after the
mail, through the real library (parsed in its worker processes, chunked, embedded, searched):
cited where they say it, refused alone when damaged, leaving with their mail."""

from __future__ import annotations

import json
from email.message import EmailMessage

from docchat.services.ingestion import FileToAdd
from tests.integration.test_cli import docchat, succeeded  # noqa: F401 (docchat: a fixture)
from tests.integration.test_parsing_mail import mail, outlook
from tests.office_files import xlsx_of

STOCK = xlsx_of({"Inventory": [["Item", "Units", "Supplier"], ["Mooring rope", 48, "Kessler Marine"],
                               ["Anchor chain", 312, "Harbour Forge"], ["Deck cleat", 96, "Kessler Marine"]]})
NOTES = b"# Delivery\n\nThe chain is delivered to berth 4 by the harbour tug on Thursday mornings.\n"


def quote(*, stock: bytes = STOCK, subject: str = "Quote for the chain") -> EmailMessage:
    message = mail("Please find our quote and the stock list attached.", subject=subject)
    message.add_attachment(stock, maintype="application",
                           subtype="vnd.openxmlformats-officedocument.spreadsheetml.sheet", filename="stock.xlsx")
    message.add_attachment(NOTES, maintype="text", subtype="markdown", filename="delivery.md")
    message.add_attachment(b"not a zip at all", maintype="application", subtype="octet-stream",
                           filename="terms.docx")
    message.add_attachment(b"PK\x05\x06" + bytes(18), maintype="application", subtype="zip", filename="photos.zip")
    return message


def names(library) -> list[str]:
    return sorted(d.name for d in library.documents.list())


def test_attachments_become_documents_named_after_the_mail_and_are_cited_there(library):
    report = library.ingestion.add("quote.eml", bytes(quote()))

    assert [a.document.name for a in report.attached] == ["quote.eml › stock.xlsx", "quote.eml › delivery.md"]
    assert library.documents.attachments_leaving_with(report.document.id) == [a.document for a in report.attached]
    [refused] = report.refused
    assert refused == 'attached to quote.eml: "terms.docx" is not a readable Word document (.docx)'
    assert names(library) == ["quote.eml", "quote.eml › delivery.md", "quote.eml › stock.xlsx"]  # no photos.zip

    found = library.retrieval.retrieve("How many anchor chains are in stock?", top_k=3)
    assert ("quote.eml › stock.xlsx", "Inventory, rows 2-4") in [(f.document, f.where) for f in found]
    [best, *_] = library.retrieval.retrieve("Who brings the chain to the berth?", top_k=3)
    assert best.document == "quote.eml › delivery.md"


def test_deleting_the_mail_takes_its_attachments_and_their_vectors(library):
    report = library.ingestion.add("quote.eml", bytes(quote()))
    library.ingestion.ingest("notes.md", b"# Other\n\nSomething else entirely about the pilot boat.\n")

    library.documents.delete(report.document.id)

    assert names(library) == ["notes.md"]
    assert library.index.open().count() == library.documents.list()[0].chunks
    assert library.index.check().agrees


def test_an_attachment_already_in_the_library_stays_when_the_mail_goes(library):
    standalone = library.ingestion.ingest("stock.xlsx", STOCK)
    report = library.ingestion.add("quote.eml", bytes(quote()))

    [present] = [a for a in report.attached if a.already_present]
    assert present.document.id == standalone.id

    library.documents.delete(report.document.id)
    assert names(library) == ["stock.xlsx"]


def test_a_mail_saved_again_with_the_same_attachments_keeps_them_when_the_old_copy_goes(library):
    """As a followed folder sees an edited mail: the new copy is added, then the old one deleted."""
    old = library.ingestion.add("quote.eml", bytes(quote()))
    new = library.ingestion.add("quote (edited).eml", bytes(quote(subject="Quote for the chain, corrected")))
    assert [a.already_present for a in new.attached] == [True, True]
    assert library.documents.attachments_leaving_with(old.document.id) == []  # the new copy holds them too

    library.documents.delete(old.document.id)
    assert names(library) == ["quote (edited).eml", "quote.eml › delivery.md", "quote.eml › stock.xlsx"]

    library.documents.delete(new.document.id)
    assert names(library) == []
    assert library.index.check().agrees


def test_one_batch_with_the_same_attachment_twice_and_the_file_itself_keeps_each_content_once(library):
    files = [FileToAdd("quote.eml", lambda: bytes(quote())),
             FileToAdd("reminder.eml", lambda: bytes(quote(subject="Reminder: quote for the chain"))),
             FileToAdd("stock.xlsx", lambda: STOCK)]

    outcomes = {o.name: o for o in library.ingestion.add_many(files)}  # each as soon as it is known

    assert [o.error for o in outcomes.values()] == [None, None, None]
    assert [(a.document.name, a.already_present) for a in outcomes["reminder.eml"].report.attached] == [
        ("quote.eml › stock.xlsx", True), ("quote.eml › delivery.md", True)]
    assert outcomes["stock.xlsx"].report.already_present
    assert names(library) == ["quote.eml", "quote.eml › delivery.md", "quote.eml › stock.xlsx", "reminder.eml"]


def test_an_outlook_message_s_attachments_are_read_too(library):
    report = library.ingestion.add("quote.msg", outlook(quote()))

    assert "quote.msg › stock.xlsx" in [a.document.name for a in report.attached]


def test_a_forwarded_mail_becomes_one_document_and_its_own_attachments_stay_inside_it(library):
    outer = mail("See the supplier's mail below.", subject="Fwd: quote")
    outer.add_attachment(quote())  # message/rfc822

    report = library.ingestion.add("forward.eml", bytes(outer))

    assert [a.document.name for a in report.attached] == ["forward.eml › forwarded message.eml"]
    assert names(library) == ["forward.eml", "forward.eml › forwarded message.eml"]


def test_docchat_ingest_prints_each_attachment_under_its_mail_and_the_api_lists_them(docchat, tmp_path):
    path = tmp_path / "quote.eml"
    path.write_bytes(bytes(quote()))

    process = docchat("ingest", str(path))

    assert process.returncode == 0, process.stderr
    lines = process.stdout.splitlines()
    assert lines[0].startswith("quote.eml: 1 chunk")
    assert lines[1].startswith("  attached: quote.eml › stock.xlsx: 1 chunk")
    assert lines[2].startswith("  attached: quote.eml › delivery.md: 1 chunk")
    assert 'docchat: attached to quote.eml: "terms.docx" is not a readable Word document' in process.stderr
    listed = json.loads(succeeded(docchat("documents", "list", "--json")))
    assert sorted(d["name"] for d in listed) == ["quote.eml", "quote.eml › delivery.md", "quote.eml › stock.xlsx"]
