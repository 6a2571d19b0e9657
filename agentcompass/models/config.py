"""``ModelConfig``: the fields of every ``conf/model/*.yaml`` (validated by pydantic, ``extra="forbid"``)."""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from . import protocols
from ._params import check_params


class Prices(BaseModel):
    """USD per million tokens, used to compute ``cost_usd`` of every call."""

    model_config = ConfigDict(extra="forbid")

    input_per_mtok: float = Field(0.0, ge=0, description="USD per 1M input tokens that were not cache hits.")
    output_per_mtok: float = Field(0.0, ge=0, description="USD per 1M output tokens (reasoning included).")
    cached_input_per_mtok: float | None = Field(
        None, ge=0, description="USD per 1M cached input tokens; default: the input price."
    )


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def duration_s(value: str | float) -> float:
    """Seconds of ``value``: a number of seconds, or a number followed by s, m, h, d or w ('30m', '7d')."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        text = str(value).strip().lower()
        unit = _UNITS.get(text[-1:]) if text else None
        try:
            seconds = float(text[:-1] if unit else text) * (unit or 1)
        except ValueError:
            raise ValueError(f"{value!r} is not a duration; expected seconds or e.g. '30m', '12h', '7d'") from None
    if not seconds > 0:
        raise ValueError(f"{value!r}: a duration must be > 0")
    return seconds


class ModelConfig(BaseModel):
    """One model endpoint. ``api_key`` is a SecretStr: it never appears in a repr, a dump or a log."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = Field(None, description="Model name sent to the endpoint (e.g. 'gpt-4o-mini').")
    base_url: str | None = Field(
        None,
        description="Endpoint root, e.g. 'http://127.0.0.1:8000/v1'. Default: OPENAI_BASE_URL / "
        "ANTHROPIC_BASE_URL, else the public API of the protocol. For anthropic-messages "
        "a trailing '/v1' is dropped, so one URL serves every protocol.",
    )
    api_key: SecretStr | None = Field(
        None,
        description="API key. Default: OPENAI_API_KEY (openai-*) or ANTHROPIC_API_KEY "
        "(anthropic-messages); 'EMPTY' for other hosts when the variable is unset.",
    )
    api_protocol: str | list[str] = Field(
        "auto",
        description="openai-chat | openai-responses | anthropic-messages | auto | a list tried in "
        "order (the next is used only when the endpoint does not support one).",
    )
    params: dict[str, Any] = Field(
        default_factory=dict,
        description="Passed through to the API: temperature, max_tokens, top_p, stop, "
        "reasoning settings... Unknown keys go to the request body.",
    )
    provider: str | None = Field(
        None, description="Name used by provider_limits; default: host[:port] of the base URL."
    )
    request_timeout_s: float = Field(600.0, gt=0, description="Timeout of one HTTP request, seconds.")
    max_retries: int = Field(8, ge=0, description="Retries of one call on 429/408/409/5xx/connection errors.")
    retry_budget_s: float = Field(
        300.0, gt=0, description="No retry is slept for or started later than this after the call began."
    )
    backoff_base_s: float = Field(1.0, ge=0, description="Backoff of retry n: uniform(0, base * 2**n).")
    backoff_max_s: float = Field(60.0, ge=0, description="Upper bound of one backoff (Retry-After wins).")
    prices: Prices | None = Field(
        None,
        description="Per-million-token prices; default: the price table (LiteLLM's model cost map), else "
        "unknown (cost null).",
    )
    context_limit: int | None = Field(None, gt=0, description="Context window in tokens (read by harnesses).")
    max_concurrency: int | None = Field(
        None, ge=1, description="Max concurrent requests to this provider, shared by all forks of the client."
    )
    fail_fast_after: int = Field(
        3,
        ge=0,
        description="Stop the request when the first N requests to the endpoint all failed to connect "
        "(refused, DNS, unreachable) and none got an answer; 0: never.",
    )

    cache: Literal["off", "read_write", "read_only"] = Field(
        "off",
        description="response cache under data_dir: off | read_write (answer from the cache, store new replies) "
        "| read_only (answer from the cache, store nothing). docs/cache.md",
    )
    cache_expire_after: str | float | None = Field(
        None,
        description="cache entries older than this are misses: seconds, or a number with s, m, h, d or w "
        "('12h', '7d'); null: never",
    )
    cache_max_mb: float | None = Field(
        4096, gt=0, description="size cap of the cache database's entries (MiB): past it the least recently used go"
    )

    replay: str | None = Field(
        None,
        description="a run directory: answer every call from that run's recorded calls (model_calls.jsonl, per "
        "task and sample, in order), never calling the endpoint; a call that differs stops the attempt",
    )

    @field_validator("cache", mode="before")
    @classmethod
    def _cache_mode(cls, value: Any) -> Any:
        return "off" if value is False else value  # YAML 1.1 reads a bare `off` as false

    @field_validator("cache_expire_after")
    @classmethod
    def _expire(cls, value: str | float | None) -> str | float | None:
        if value is not None:
            duration_s(value)
        return value

    def cache_expire_after_s(self) -> float | None:
        return None if self.cache_expire_after is None else duration_s(self.cache_expire_after)

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("not a URL; expected http://host[:port][/path] or https://...")
        try:
            _ = parts.port  # reading it validates it
        except ValueError:
            raise ValueError("not a URL: the port is not a number from 0 to 65535") from None
        return value.strip()

    @field_validator("params")
    @classmethod
    def _check_params(cls, value: dict[str, Any]) -> dict[str, Any]:
        return check_params(value, "model params")

    @field_validator("api_protocol", mode="before")
    @classmethod
    def _one_or_list(cls, value: Any) -> Any:
        allowed = f"allowed: one of {', '.join(protocols.names())}, auto, or a list of them"
        if isinstance(value, (list, tuple)) and not value:
            raise ValueError(f"an empty list; {allowed}")
        if isinstance(value, tuple) or (hasattr(value, "__iter__") and not isinstance(value, (str, list, dict))):
            value = list(value)
        known = (*protocols.names(), "auto")
        for name in value if isinstance(value, list) else [value]:
            if not isinstance(name, str) or name not in known or (name == "auto" and isinstance(value, list)):
                raise ValueError(f"{name!r} is not a protocol; {allowed}")
        return value

    def protocol_list(self) -> list[str] | None:
        """The configured protocols in order, or None for ``auto``."""
        if self.api_protocol == "auto":
            return None
        return [self.api_protocol] if isinstance(self.api_protocol, str) else list(self.api_protocol)
