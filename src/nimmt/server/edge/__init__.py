"""The edge: the ASGI app, its WebSocket and HTTP routes, and its guards."""
