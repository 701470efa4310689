"""Privacy: files that are never read, secrets that never leave the server.

`Privacy` (policy.py) is the server's one decision point; `patterns.py` finds secrets and masks
them keeping lengths; `denylist.py` matches `privacy.denyFiles` and the workspace boundary;
`listener.py` shows the index redacted buffers; `log_filter.py` scrubs log records.
"""

from .denylist import Denylist
from .listener import RedactingListener
from .log_filter import RedactingFilter
from .patterns import redact
from .policy import Privacy, api_keys_of
from .settings import DEFAULT_DENY_FILES, PrivacySettings

__all__ = ["DEFAULT_DENY_FILES", "Denylist", "Privacy", "PrivacySettings", "RedactingFilter",
           "RedactingListener", "api_keys_of", "redact"]
