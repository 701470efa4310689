"""`BackendSpec`: one entry of the `backends` setting, as the router and backend factories see it.

Field names are snake_case here and camelCase on the wire (`modelFamily`, `apiKeyEnv`,
`timeoutMs`, `kvCacheMB`, ...); `lsp_server.config` does the conversion. The fields below the
`embedded` line only matter for `kind == "embedded"`. `kind == "python"` loads a `Backend` class
from `model` written as "package.module:ClassName" (used by benchmarks' deterministic models and
by users with an in-process model of their own).
"""

from __future__ import annotations

from dataclasses import dataclass, field

QUANTIZE_MODES = ("auto", "none", "int8", "int4")  # embedded: see inference.engine.config
BACKEND_KINDS = ("openai", "ollama", "tgi", "llamacpp", "embedded", "python")
# remote: "template" sends our FIM prompt; "server" lets the server lay out FIM (llama-server
# `/infill`, OpenAI `suffix`, Ollama `suffix`); "auto" picks what the server supports
FIM_MODES = ("auto", "template", "server")


@dataclass(slots=True, kw_only=True)
class BackendSpec:
    name: str = ""
    kind: str = "openai"
    url: str = "http://127.0.0.1:8000/v1"
    model: str = ""
    model_family: str = ""
    api_key_env: str = ""
    api_key: str = field(default="", repr=False)  # never shown: prefer apiKeyEnv
    timeout_ms: int = 5000
    # requests this backend may have in flight at once (0: detected, else by kind; see inference.router_slot)
    max_in_flight: int = 0
    max_tokens: int = 128
    temperature: float = 0.0
    top_p: float = 1.0
    # --- remote ---
    fim_mode: str = "auto"
    stop: list[str] = field(default_factory=list)  # extra stop strings sent to the server
    proxy: str = ""
    ca_bundle: str = ""
    id_slot: int = -1  # llamacpp: the server slot to use (-1: the server picks)
    keep_alive: str = "30m"  # ollama: how long the model stays loaded after a request
    # --- embedded ---
    device: str = "auto"
    dtype: str = "auto"
    threads: int = 0
    quantize: str = "auto"
    kv_cache_mb: int = 256
    block_size: int = 4
    max_batch: int = 8
    max_wait_ms: float = 2.0
    max_backlog: int = 512
    lookup_tokens: int = 4  # prompt-lookup draft tokens verified per step (0: off); see EngineConfig

    def __post_init__(self) -> None:
        if self.kind not in BACKEND_KINDS:
            raise ValueError(f"unknown backend kind {self.kind!r}; expected one of {', '.join(BACKEND_KINDS)}")
        if self.timeout_ms <= 0:
            raise ValueError("timeoutMs must be positive")
        if self.max_in_flight < 0:
            raise ValueError("maxInFlight must be 0 (detect) or positive")
        if self.fim_mode not in FIM_MODES:
            raise ValueError(f"fimMode must be one of {', '.join(FIM_MODES)}")
        if self.quantize not in QUANTIZE_MODES:
            raise ValueError(f"quantize must be one of {', '.join(QUANTIZE_MODES)}")
        if self.lookup_tokens < 0:
            raise ValueError("lookupTokens must be 0 (off) or positive")
        if not self.name:
            self.name = self.kind

    @property
    def display_name(self) -> str:
        return f"{self.name}:{self.model}" if self.model else self.name
