"""Security headers on every HTTP answer of the server.

The web client is plain files from this server: ES modules, one stylesheet, no
inline script or style, no event-handler attributes, no eval. So the
Content-Security-Policy can allow only this origin: an injected ``<script>`` or
``onerror=`` (should a name or a chat line ever reach the page as markup) does not
run, and no other site can frame the pages to trick a click
(``frame-ancestors 'none'`` for browsers that read CSP, X-Frame-Options for older
ones). ``nosniff`` keeps a JSON answer from being run as a script, and no page
tells another site which table it came from (Referrer-Policy).

:class:`SecurityHeaders` is a pure ASGI middleware: it adds headers to
``http.response.start`` and lets WebSocket traffic through untouched (Starlette's
``BaseHTTPMiddleware`` would get in the way of both). The app wraps its whole
stack with it (:class:`HeaderedStarlette`), so Starlette's own error pages, 500s
included, carry the headers too.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CONTENT_SECURITY_POLICY", "SECURITY_HEADERS", "HeaderedStarlette", "SecurityHeaders"]

#: The policy of every answer: this origin only (its WebSocket too: ``'self'`` covers
#: ``ws:``/``wss:`` to the same host), images also as ``data:`` URLs (the empty icon).
CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
])

#: Every header added, as the server sends it.
SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
}

_RAW = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in SECURITY_HEADERS.items()]


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every HTTP response (a header the app already set
    is kept as the app set it)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                have = {name.lower() for name, _ in headers}
                headers.extend((k, v) for k, v in _RAW if k not in have)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class HeaderedStarlette(Starlette):
    """Starlette with :class:`SecurityHeaders` around its whole middleware stack.

    Middleware given to Starlette sits inside its ``ServerErrorMiddleware``, so a 500
    page would go out without the headers; wrapping the built stack reaches it too.
    """

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack())
