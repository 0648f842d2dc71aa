"""What the UI, `docchat doctor` and `docchat ask --json` show about the LLM."""

from __future__ import annotations

from docchat.domain import LLMStatus
from docchat.errors import LLMError
from docchat.llm.calibration import calibrate
from docchat.llm.discovery import is_healthy, prefix_cache
from docchat.memory.tokens import TokenCounter


class LLMService:
    def __init__(self, gateway, counter: TokenCounter):
        self._gateway = gateway
        self._counter = counter
        self._calibration: str | None = None

    def calibration(self) -> str:
        """Checked once per process, the first time a server answers."""
        if self._calibration is None:
            try:
                info = self._gateway.info()
            except LLMError as error:
                return f"not checked: {error}"
            self._calibration = calibrate(self._counter, info)
        return self._calibration

    def reachable(self) -> str | None:
        """None when the server answers; otherwise what is wrong, in words for the user."""
        try:
            self._gateway.info(refresh=not is_healthy(self._gateway.base_url, timeout=0.5))
        except LLMError as error:
            return f"{str(error)[0].upper()}{str(error)[1:]}."
        return None

    def status(self) -> LLMStatus:
        url = self._gateway.base_url
        healthy = is_healthy(url)
        model = max_model_len = error = None
        if healthy:
            try:
                info = self._gateway.info(refresh=True)
                model, max_model_len = info.model, info.max_model_len
            except LLMError as failure:
                error = str(failure)
        else:
            error = f"the LLM server is not running at {url}"
        counters = prefix_cache(url) if healthy else None
        return LLMStatus(
            url=url, healthy=healthy, model=model, max_model_len=max_model_len,
            counter=self._counter.id, counter_exact=self._counter.exact,
            calibration=self.calibration() if healthy else "not checked: server not running",
            prefix_cache_hits=counters.hits if counters else None,
            prefix_cache_queries=counters.queries if counters else None,
            error=error,
        )
