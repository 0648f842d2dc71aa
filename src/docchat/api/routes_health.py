"""The same facts as `docchat doctor`: the store, the LLM server, the document library, backups."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from docchat.api import deps
from docchat.api.schemas import Health

router = APIRouter(prefix="/api/v1", tags=["health"])


@router.get("/health", response_model=Health)
def health(services=Depends(deps.services)):
    return services.health.report().as_dict()
