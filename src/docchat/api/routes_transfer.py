"""Export and import, as `docchat export` and `docchat import` do them.

An import is checked whole before anything is written, and writes all of the file or nothing;
importing the same file again adds nothing and says so.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, File, Query, Response, UploadFile

from docchat.api import deps
from docchat.api.guard import BodyTooLarge
from docchat.api.schemas import ImportReportOut
from docchat.wording import size

router = APIRouter(prefix="/api/v1", tags=["export and import"])

IMPORT_PATH = "/api/v1/import"
DOWNLOAD = {"md": "text/markdown; charset=utf-8", "json": "application/json"}


@router.get("/conversations/{conversation_id}/export",
            responses={200: {"content": {"text/markdown": {}, "application/json": {}}}})
def export_conversation(conversation_id: str, format: Literal["md", "json"] = "md", services=Depends(deps.services)):
    found = services.conversations.resolve_id(conversation_id)
    transfer = services.transfer
    text = transfer.export_markdown(found) if format == "md" else transfer.export_json(found)
    return Response(text.encode("utf-8"), media_type=DOWNLOAD[format],
                    headers={"Content-Disposition": f'attachment; filename="conversation-{found}.{format}"'})


@router.get("/export", responses={200: {"content": {"application/zip": {}}}})
def export_all(services=Depends(deps.services)):
    """Every conversation as `<id>.json`, in one zip."""
    return Response(services.transfer.export_all_zip(), media_type="application/zip",
                    headers={"Content-Disposition": 'attachment; filename="docchat-conversations.zip"'})


@router.post("/import", response_model=list[ImportReportOut])
def import_conversations(file: UploadFile = File(description="A docchat JSON export or a zip of them, "
                                                 "ChatGPT's conversations.json or an Open WebUI chat export"),
                         as_copy: bool = Query(False, description="import under new ids"),
                         services=Depends(deps.services)):
    raw = file.file.read()
    limit = services.settings.max_upload_mb * 1024 * 1024
    if len(raw) > limit:
        raise BodyTooLarge(f"{file.filename or 'the file'} is {size(len(raw))}; a file can be at most {size(limit)}")
    reports = services.transfer.import_bytes(raw, name=file.filename or "file", as_copy=as_copy)
    return [report.__dict__ for report in reports]
