"""A real ``zenbrain serve`` for tests and benchmarks: uvicorn on 127.0.0.1, on a free port,
in a background thread of this process.

::

    from zenbrain.server import create_app
    from zenbrain.testing.server import running_server

    with running_server(create_app("memory.db")) as url:   # "http://127.0.0.1:PORT"
        ...

Needs the ``server`` extra.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["running_server"]


@contextmanager
def running_server(app: Any, *, startup_timeout: float = 20.0) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 until the block ends; yields the base URL."""
    import uvicorn

    from zenbrain.server._running import listening_socket

    sock = listening_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", server_header=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + startup_timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
