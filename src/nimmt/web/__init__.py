"""The web client: static pages served by ``nimmt serve``, and what they speak.

The pages (``static/``) are plain HTML, CSS and ES modules: no build step. They
get the narration and the shortcuts' sentences with the WebSocket frames. The server's
edge serves them (:mod:`nimmt.server.edge.web`), with two JSON endpoints: the narration
of a table in the player's language (for the terminal client; see
:mod:`nimmt.web.speech`) and a finished game's replay.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["STATIC_DIR"]

#: The web client's files.
STATIC_DIR = Path(__file__).parent / "static"
