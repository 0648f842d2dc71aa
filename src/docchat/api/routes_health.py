"""The same facts as `docchat doctor`: the store, the LLM server, the document library, backups."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from docchat.api import deps
from docchat.api.schemas import Health
from docchat.services.backup import backup_status

router = APIRouter(prefix="/api/v1", tags=["health"])


@router.get("/health", response_model=Health)
def health(services=Depends(deps.services)):
    return {"store": services.conversations.health().__dict__, "llm": services.llm.status().__dict__,
            "documents": services.documents.health().__dict__,
            "backup": backup_status(services.settings.resolved_data_dir).__dict__}
