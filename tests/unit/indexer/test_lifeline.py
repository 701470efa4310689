"""`lifeline.hold(pid)`: a process holding a lifeline to `pid` exits once `pid` has ended, through
a pidfd where there is one, else by polling."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

HOLDER = """
import os, sys, time
if sys.argv[2] == "poll" and hasattr(os, "pidfd_open"):
    del os.pidfd_open
from indexer import lifeline
lifeline.POLL_S = 0.05
lifeline.hold(int(sys.argv[1]))
print("holding", flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("way", ["pidfd", "poll"])
def test_holder_exits_when_the_held_process_ends(way):
    held = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(held.pid), way], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        time.sleep(0.2)
        assert holder.poll() is None  # alive while the held process is
        held.kill()
        held.wait()
        assert holder.wait(timeout=5) == 0
    finally:
        for process in (held, holder):
            if process.poll() is None:
                process.kill()
                process.wait()
