"""What the tests share: the shared vectors' files, and a stand-in Doorman, a real HTTP server on
127.0.0.1 (stdlib ``http.server`` in a thread) that answers each request as a test says and
records what it received. The clients talk to it over real sockets, never a mocked transport."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TypedDict, cast

from doorman_client.types import SignupRequest

CLIENT_DIR = Path(__file__).resolve().parent.parent
VECTORS = CLIENT_DIR.parent / "test-vectors"
KEY = "sk_test_vectors"


def vector_cases(file: str) -> list[dict[str, object]]:
    """Every case of one vector file, as the lead's generator wrote it (a case added later is
    picked up here without a change)."""
    document = json.loads((VECTORS / file).read_text(encoding="utf-8"))
    cases = cast(list[dict[str, object]], document["cases"])
    assert cases, f"{file} has no cases"
    return cases


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes


class Reply(TypedDict):
    status: int
    """0: close the connection without answering."""
    headers: Mapping[str, str | Sequence[str]]
    body: str | bytes


Responder = Callable[[Received], Reply]


@dataclass
class StandIn:
    url: str
    received: list[Received] = field(default_factory=list)


def reply(status: int, body: object = None, headers: Mapping[str, str | Sequence[str]] | None = None) -> Reply:
    text = body if isinstance(body, (str, bytes)) else json.dumps(body)
    return {"status": status, "headers": {"Content-Type": "application/json", **(headers or {})}, "body": text}


@contextmanager
def stand_in(responder: Responder) -> Iterator[StandIn]:
    """A server on a free loopback port answering every request with ``responder``."""
    state = StandIn(url="")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            seen = Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            with lock:
                state.received.append(seen)
            answer = responder(seen)
            if answer["status"] == 0:
                # Drop the connection without an answer (a crashed instance, a reset).
                self.close_connection = True
                return
            payload = answer["body"].encode("utf-8") if isinstance(answer["body"], str) else answer["body"]
            self.send_response(answer["status"])
            for name, value in answer["headers"].items():
                for one in [value] if isinstance(value, str) else value:
                    self.send_header(name, one)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def silent_server() -> Iterator[str]:
    """A server that accepts connections and never answers: the kernel completes the handshake
    (the listen backlog), and nothing is ever read or written."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


def stopped_server_url() -> str:
    """A port that was bound and closed: nothing listens there, so a connection is refused."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}"


def a_signup() -> SignupRequest:
    return {"event_type": "signup", "email": "ada@example.com", "ip": "203.0.113.10"}
