"""The web client: static pages served by ``nimmt serve``, and what they speak.

The pages (``static/``) are plain HTML, CSS and ES modules: no build step. They
get the narration and the shortcuts' sentences with the WebSocket frames.
:func:`web_routes` adds them to the server's app, with two JSON endpoints: the
narration of a table in the player's language (for the terminal client; see
:mod:`nimmt.web.speech`) and a finished game's replay.
"""

from __future__ import annotations

from .routes import STATIC_DIR, web_routes

__all__ = ["STATIC_DIR", "web_routes"]
