"""window/logMessage forwarding: warnings and up only, scrubbed, rate-limited per call site."""

from __future__ import annotations

import asyncio
import logging
import threading

from lsp_server.client_log import ClientLogHandler


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def make(clock, sent):
    handler = ClientLogHandler(lambda kind, message: sent.append((kind, message)), interval_s=30, clock=clock)
    log = logging.getLogger("arbor.test.client_log")
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)
    log.propagate = False
    return log, handler


def test_one_message_per_call_site_per_interval_then_the_count_held_back():
    clock, sent = Clock(), []
    log, handler = make(clock, sent)

    def backend_down(i: int) -> None:
        log.warning("backend down: %d", i)  # one call site

    try:
        for i in range(5):
            backend_down(i)
            clock.now += 1
        log.error("another place")
        log.info("not sent")
        clock.now = 40
        for i in range(2):
            backend_down(i)
        assert [k for k, _ in sent] == [2, 1, 2]
        assert sent[0][1].endswith("backend down: 0") and "another place" in sent[1][1]
        assert "(4 more from the same place in the last 30 s not sent)" in sent[2][1]
    finally:
        log.removeHandler(handler)


def test_secrets_are_scrubbed_and_sending_never_recurses():
    clock, sent = Clock(), []
    log, handler = make(clock, sent)

    def send(kind, message):
        sent.append(message)
        log.warning("while sending")  # the transport logging: not sent again

    handler.send = send
    try:
        log.warning("echoed Bearer sk-live-4f9a8b7c6d5e4f3a2b1c0d9e")
        assert len(sent) == 1 and "sk-live-4f9a" not in sent[0]
    finally:
        log.removeHandler(handler)


async def test_records_from_other_threads_are_sent_on_the_loop():
    sent, threads = [], []
    handler = ClientLogHandler(lambda kind, message: (sent.append(message), threads.append(threading.get_ident())),
                               loop=asyncio.get_running_loop())
    log = logging.getLogger("arbor.test.client_log.thread")
    log.addHandler(handler)
    log.propagate = False
    try:
        worker = threading.Thread(target=lambda: log.warning("from the index thread"))
        worker.start()
        worker.join()
        for _ in range(50):
            if sent:
                break
            await asyncio.sleep(0.01)
        assert sent and threads == [threading.get_ident()]
    finally:
        log.removeHandler(handler)


def test_pygls_records_and_records_after_close_are_not_sent():
    clock, sent = Clock(), []
    handler = ClientLogHandler(lambda kind, message: sent.append(message), clock=clock)
    record = logging.LogRecord("pygls.protocol.json_rpc", logging.ERROR, __file__, 1, "Error sending data", None, None)
    handler.handle(record)
    assert sent == []
    handler.handle(logging.LogRecord("arbor.x", logging.ERROR, __file__, 2, "sent", None, None))
    handler.close()
    handler.handle(logging.LogRecord("arbor.x", logging.ERROR, __file__, 3, "after close", None, None))
    assert len(sent) == 1 and "sent" in sent[0]
