"""The game server (``nimmt serve``): tables for friends and bots, real-time and durable.

It is made of parts, each a package that owns one thing and says what it may import
(docs/modules.md holds the map, tests/test_imports.py holds the imports to it):

- :mod:`.base`: what every part shares (settings, the log, limits, names and text);
- :mod:`.store`: the database, every SQL statement, the migrations, backups;
- :mod:`.workers`: bots, hints, analyses and heavy reads, off the event loop;
- :mod:`.people`: who a connection is, and the room around the tables;
- :mod:`.tables`: each table's pure reducer, its thin actor, its fan-out;
- :mod:`.cluster`: many processes, one set of tables (Redis);
- :mod:`.ops`: health, metrics and ``nimmt admin``;
- :mod:`.edge`: the ASGI app, the WebSocket and HTTP routes and their guards, thin.

:mod:`.root` builds them and hands each the interfaces it needs; :mod:`.run` and
:mod:`.cli` run it. The wire contract the clients speak is :mod:`nimmt.wire`, outside
the server. See docs/server.md and docs/protocol.md.
"""
