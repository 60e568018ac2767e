"""The web client: static pages served by ``nimmt serve``, and what they speak.

The pages (``static/``) are plain HTML, CSS and ES modules: no build step.
:func:`web_routes` adds them to the server's app, with two JSON endpoints that
give a page the narration of its table in the player's language (see
:mod:`nimmt.web.speech`).
"""

from __future__ import annotations

from .routes import STATIC_DIR, web_routes

__all__ = ["STATIC_DIR", "web_routes"]
