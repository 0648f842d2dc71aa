"""The document library: upload (the page's checks and limits), list, delete, usage."""

from __future__ import annotations


from fastapi import APIRouter, Depends, FastAPI, File, Response, UploadFile
from fastapi.responses import JSONResponse

from docchat.api import deps
from docchat.api.errors import error_response, one_line
from docchat.api.schemas import AttachmentAdded, DocumentAdded, DocumentOut, DocumentUseOut, from_document
from docchat.errors import InvalidInput

router = APIRouter(prefix="/api/v1", tags=["documents"])

UPLOAD_PATH = "/api/v1/documents"


@router.post("/documents", response_model=DocumentAdded, status_code=201,
             responses={200: {"model": DocumentAdded, "description": "The same content was in the library already"},
                        413: {"description": "The file is over the upload limit"},
                        415: {"description": "Not a kind of file docchat reads"}})
def add_document(file: UploadFile = File(description="A document of a kind docchat reads (named above)"),
                 services=Depends(deps.services)):
    """Parses, chunks and indexes the file, all or nothing; a file already in the library
    changes nothing (200, `already_present`)."""
    name = file.filename or "upload"
    data = file.file.read()
    try:
        report = services.ingestion.add(name, data)
    except InvalidInput as error:
        return error_response(UPLOAD_PATH, _refusal(name, data, services), one_line(error))
    added = DocumentAdded(
        document=from_document(report.document), already_present=report.already_present,
        attachments=[AttachmentAdded(document=from_document(a.document), already_present=a.already_present)
                     for a in report.attached],
        refused_attachments=list(report.refused))
    return JSONResponse(added.model_dump(mode="json"), status_code=200 if report.already_present else 201)


@router.get("/documents", response_model=list[DocumentOut])
def list_documents(services=Depends(deps.services)):
    return [from_document(d) for d in services.documents.list()]


@router.delete("/documents/{document_id}", status_code=204)
def delete_document(document_id: str, services=Depends(deps.services)):
    """Removes the document, its chunks and its vectors; answers that cited it keep their quotes."""
    documents = services.documents
    documents.delete(documents.resolve_id(document_id))
    return Response(status_code=204)


@router.get("/documents/{document_id}/usage", response_model=list[DocumentUseOut])
def document_usage(document_id: str, services=Depends(deps.services)):
    """The conversations whose answers cited the document."""
    documents = services.documents
    return [use.__dict__ for use in documents.usage(documents.resolve_id(document_id))]


def name_the_kinds(app: FastAPI, kinds: str) -> None:
    """Says in the upload's documentation which kinds the library reads (`kinds`, as its parser
    words them), so that no list of them is kept here: the app's schema is extended once, when it
    is first built, as FastAPI lets an app extend it."""
    build = app.openapi

    def openapi() -> dict:
        if app.openapi_schema is None:
            build()["paths"][UPLOAD_PATH]["post"]["description"] += f"\n\ndocchat reads {kinds}."
        return app.openapi_schema

    app.openapi = openapi


def _refusal(name: str, data: bytes, services) -> int:
    if not services.ingestion.reads(name):
        return 415
    if len(data) > services.settings.max_upload_mb * 1024 * 1024:
        return 413
    return 400
