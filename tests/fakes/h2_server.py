"""A loopback HTTP/2-only fake of llama-server's `/completion` over TLS (ALPN `h2`), for tests only.

It runs on its own event loop in a thread, answers every request to `/completion` with llama-server's streamed events
(`chunks`, `chunk_delay` seconds apart, then the final `stop` event) and any other path with
404, and records per request the
path and JSON body (`requests`), the streams the client reset before their end (`reset_streams`,
`reset` set at the first) and the connections it opened (`connections`).
"""

from __future__ import annotations

import asyncio
import json
import ssl
import threading
from typing import Any

import h2.config
import h2.connection
import h2.events
import h2.exceptions


class H2Fake:
    def __init__(self, certfile: str, chunks: list[str], chunk_delay: float = 0.0):
        self.certfile, self.chunks, self.chunk_delay = certfile, chunks, chunk_delay
        self.requests: list[tuple[str, Any]] = []
        self.reset = threading.Event()
        self.reset_streams: set[int] = set()
        self.connections = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.port = 0

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def __enter__(self) -> H2Fake:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: Any) -> None:
        async def shutdown() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._loop.stop()

        asyncio.run_coroutine_threadsafe(shutdown(), self._loop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.certfile)
        context.set_alpn_protocols(["h2"])
        server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=context))
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        conn.initiate_connection()
        writer.write(conn.data_to_send())
        bodies: dict[int, bytearray] = {}
        paths: dict[int, str] = {}
        try:
            while data := await reader.read(65536):
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.RequestReceived):
                        paths[event.stream_id] = dict(event.headers).get(":path", "")
                        bodies[event.stream_id] = bytearray()
                    elif isinstance(event, h2.events.DataReceived):
                        bodies[event.stream_id] += event.data
                        conn.acknowledge_received_data(len(event.data), event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded):
                        self.requests.append((paths[event.stream_id], json.loads(bodies[event.stream_id] or b"{}")))
                        if paths[event.stream_id] == "/completion":
                            asyncio.ensure_future(self._respond(conn, writer, event.stream_id))
                        else:  # detection routes: this fake serves none
                            conn.send_headers(event.stream_id, [(":status", "404")], end_stream=True)
                    elif isinstance(event, h2.events.StreamReset):
                        self.reset_streams.add(event.stream_id)
                        self.reset.set()
                writer.write(conn.data_to_send())
                await writer.drain()
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    async def _respond(self, conn: h2.connection.H2Connection, writer: asyncio.StreamWriter, stream_id: int) -> None:
        conn.send_headers(stream_id, [(":status", "200"), ("content-type", "text/event-stream")])
        events = [{"content": c, "stop": False} for c in self.chunks] + [{"content": "", "stop": True}]
        try:
            for event in events:
                if stream_id in self.reset_streams:
                    return
                conn.send_data(stream_id, f"data: {json.dumps(event)}\n\n".encode())
                writer.write(conn.data_to_send())
                await writer.drain()
                if self.chunk_delay:
                    await asyncio.sleep(self.chunk_delay)
            conn.end_stream(stream_id)
            writer.write(conn.data_to_send())
            await writer.drain()
        except (ConnectionError, h2.exceptions.ProtocolError, h2.exceptions.StreamClosedError):
            pass
