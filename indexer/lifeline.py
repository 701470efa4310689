"""A worker process's lifeline to the process it works for: when that process ends, however it
ends (SIGKILL, SIGTERM, a crash, a normal exit that did not stop its pool), the worker exits too.

Workers are started through a forkserver, so their parent is not the server: `hold(pid)` is given
the server's own pid. Two mechanisms, either of which suffices:
- on Linux, the parent-death signal (`PR_SET_PDEATHSIG`): the kernel sends SIGKILL to the worker
  when its parent (the forkserver, which exits with the server, or the server itself under
  "spawn") dies, even while the worker is busy in C code holding the GIL;
- a daemon thread waits on a pidfd of `pid` (readable once it has exited), or where there is
  none polls it every `POLL_S` seconds, and then ends the worker with `os._exit`.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import sys
import threading
import time

POLL_S = 0.5
_PR_SET_PDEATHSIG = 1


def hold(pid: int) -> None:
    """Run in the worker (a pool initializer): exit once process `pid` has ended."""
    _die_with_parent()
    watch(pid)


def watch(pid: int) -> None:
    """End this process (`os._exit`) once process `pid` has ended; the daemon thread alone, no
    parent-death signal (for a process whose parent may rightly exit first)."""
    threading.Thread(target=_wait_for, args=(pid,), name="arbor-lifeline", daemon=True).start()


def _die_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(0)


def _wait_for(pid: int) -> None:
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    if fd is not None:
        select.select([fd], [], [])
    else:
        while _alive(pid):
            time.sleep(POLL_S)
    os._exit(0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
