"""What the UI, `docchat doctor` and `docchat ask --json` show about the LLM."""

from __future__ import annotations

import logging
from typing import Callable

from docchat.domain import LLMStatus
from docchat.errors import LLMError
from docchat.ports import Gateway, ServerInfo, TokenCounter

log = logging.getLogger(__name__)

# A sample conversation whose count is compared with the server's, once.
SAMPLE = [
    {"role": "system", "content": "You are docchat, a careful assistant."},
    {"role": "user", "content": "What is the Determination Date in the 2024 trust agreement?"},
    {"role": "assistant", "content": "It is the 15th of each month; if that is not a business day, the next one."},
    {"role": "user", "content": "And what happens if it falls on a weekend?"},
]


def window_words(info: ServerInfo) -> str:
    """'32,768 tokens (reported by the server)', '4,096 tokens (assumed: ...)'."""
    why = f": {info.window_note}" if info.window_source.startswith("assumed") and info.window_note else ""
    return f"{info.max_model_len:,} tokens ({info.window_source}{why})"


class LLMService:
    def __init__(self, gateway: Gateway, counter: TokenCounter,
                 probe: Callable[[str], ServerInfo] | None = None, start_advice: str = "start it with `make run`",
                 starting: Callable[[], str | None] = lambda: None):
        self._gateway = gateway
        self._counter = counter
        self._probe = probe
        # What the server is doing while this process starts it ('loading the model, 1 min 05 s
        # so far'), else None.
        self.starting = starting
        # What starts the server the settings name, for the page to say when it is down.
        self.start_advice = start_advice
        self._calibration: dict[str, str] = {}  # by counter: it follows the model served

    def check(self, url: str) -> str:
        """Whether an LLM server answers at `url`, in words: what it serves and its window.
        Raises LLMError, with a message, when it does not."""
        if self._probe is None:
            raise LLMError("no way to reach another server from here")
        info = self._probe(url.strip().rstrip("/"))
        return f"{info.server} at {info.base_url} serves {info.model}, with a window of {window_words(info)}"

    def calibration(self) -> str:
        """Whether local token counts equal the server's: checked once per counter, the first
        time a server answers ('matches server (N tokens)', or what differs, logged)."""
        counter = self._counter
        if counter.id not in self._calibration:
            local = sum(counter.count_message(m["role"], m["content"]) for m in SAMPLE)
            local += getattr(counter, "generation_prompt_tokens", 0)
            try:
                server = self._gateway.count_tokens(SAMPLE)
            except LLMError as error:
                return f"not checked: {error}"
            if server == local:
                self._calibration[counter.id] = f"matches server ({server} tokens)"
            else:
                log.warning("token counter %s counts %d tokens for the sample conversation, the server %d",
                            counter.id, local, server)
                self._calibration[counter.id] = (f"differs: local {local} vs server {server} tokens "
                                                 "for the sample conversation")
        return self._calibration[counter.id]

    def reachable(self) -> str | None:
        """None when the server answers; otherwise what is wrong, in words for the user."""
        try:
            # Asked afresh each time (one request, as cheap as /health): a server restarted with
            # another model is noticed before the question, and the token counter follows it.
            self._gateway.info(refresh=True)
        except LLMError as error:
            return f"{str(error)[0].upper()}{str(error)[1:]}."
        return None

    def status(self) -> LLMStatus:
        url = self._gateway.base_url
        healthy = self._gateway.healthy()
        info = error = None
        if healthy:
            try:
                info = self._gateway.info(refresh=True)
            except LLMError as failure:
                error = str(failure)
        else:
            now = self.starting()
            error = f"the LLM server is starting: {now}" if now else f"the LLM server is not running at {url}"
        counters = self._gateway.prefix_cache() if healthy else None
        calibration = self.calibration() if healthy else "not checked: server not running"
        return LLMStatus(
            url=url, healthy=healthy, model=info.model if info else None,
            max_model_len=info.max_model_len if info else None,
            server=info.server if info else None, window_source=info.window_source if info else None,
            window_note=info.window_note if info else None, models=tuple(info.models) if info else (),
            prefix_cache_reported=info.reports_prefix_cache if info else True,
            sampling_options=tuple(info.sampling_options) if info else (),
            continues_answers=info.continues_answers if info else True,
            counter=self._counter.id,
            # Exact only for the model the server says it serves, and only if the counts agree.
            counter_exact=healthy and self._counter.exact and not calibration.startswith("differs"),
            calibration=calibration,
            prefix_cache_hits=counters.hits if counters else None,
            prefix_cache_queries=counters.queries if counters else None,
            error=error,
        )
