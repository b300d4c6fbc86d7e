"""Running the app with uvicorn, bound to loopback unless told otherwise."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Sequence

from zenbrain.errors import InvalidInputError
from zenbrain.server.keys import active_key_count

__all__ = ["DEFAULT_PORT", "is_loopback", "listening_socket", "serve"]

DEFAULT_PORT = 8765


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1 or localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def listening_socket(host: str, port: int) -> socket.socket:
    """A bound TCP socket with Nagle's algorithm off. Accepted connections inherit that on
    Linux; without it each small response waited for the client's delayed ACK (about 40 ms
    a request on loopback)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise InvalidInputError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    return sock


def serve(
    location: str | None,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    cors_origins: Sequence[str] = (),
    max_body_bytes: int | None = None,
    log_level: str = "info",
) -> None:
    """Serve the store at ``location`` until interrupted. Binding to anything but loopback
    needs an API key in the store first (``zenbrain keys add``), and then every request
    needs one."""
    import uvicorn

    from zenbrain import MemoryCoordinator
    from zenbrain.server._app import DEFAULT_MAX_BODY_BYTES, create_app

    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise InvalidInputError(f"port must be 0..65535, got {port!r}")
    memory = MemoryCoordinator(location)
    try:
        public = not is_loopback(host)
        if public and active_key_count(memory) == 0:
            raise InvalidInputError(
                f"refusing to serve on {host!r} without an API key: anyone who can reach it "
                "could read and change every memory. Make a key first (zenbrain keys add "
                "NAMESPACE), or serve on 127.0.0.1"
            )
        app = create_app(
            memory,
            require_keys=public,
            cors_origins=cors_origins,
            max_body_bytes=max_body_bytes or DEFAULT_MAX_BODY_BYTES,
        )
        sock = listening_socket(host, port)
        config = uvicorn.Config(app, log_level=log_level, server_header=False)
        try:
            uvicorn.Server(config).run(sockets=[sock])
        finally:
            sock.close()
    finally:
        memory.close()
