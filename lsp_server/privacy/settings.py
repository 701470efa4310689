"""The `privacy.*` settings: files whose content never leaves them, and secret redaction."""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_DENY_FILES: tuple[str, ...] = (
    ".env", ".env.*", "*.env", ".envrc", "*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "*.jks",
    "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", ".npmrc", ".pypirc", ".netrc", ".pgpass",
    ".git-credentials", "*credentials*", "secrets.*", "*.secrets", "*.tfvars", "*.tfstate",
    "**/.ssh/**", "**/.aws/**", "**/.gnupg/**",
)


@dataclass(slots=True, kw_only=True)
class PrivacySettings:
    """`deny_files`: globs (a name such as `*.pem` matches the file's name in any folder; a glob
    with a `/` matches the whole path); `redact_secrets`: mask secret-looking strings in prompts."""

    deny_files: list[str] = field(default_factory=lambda: list(DEFAULT_DENY_FILES))
    redact_secrets: bool = True

    def __post_init__(self) -> None:
        if any(not glob.strip() for glob in self.deny_files):
            raise ValueError("denyFiles must not hold empty globs")
