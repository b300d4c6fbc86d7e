"""``zenbrain serve``: the HTTP API (``/v1``, OpenAPI at ``/v1/openapi.json``) and the memory
inspector (``/``) over one store. Needs the ``server`` extra::

    pip install 'zenbrain[server]'
    zenbrain serve --db memory.db          # http://127.0.0.1:8765/

or from Python, with any ASGI server::

    from zenbrain.server import create_app
    app = create_app("memory.db")

See docs/guide/server.md.
"""

from __future__ import annotations

from zenbrain.errors import require

require("fastapi", "server", "The HTTP server")
require("uvicorn", "server", "The HTTP server")

from zenbrain.server._app import DEFAULT_MAX_BODY_BYTES, create_app  # noqa: E402
from zenbrain.server._running import DEFAULT_PORT, is_loopback, serve  # noqa: E402

__all__ = ["DEFAULT_MAX_BODY_BYTES", "DEFAULT_PORT", "create_app", "is_loopback", "serve"]
