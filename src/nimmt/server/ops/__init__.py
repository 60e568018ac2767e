"""Operations: what an operator sees and does beside the game.

- :mod:`.health`: ``/healthz`` and ``/readyz``, cheap whatever their rate;
- :mod:`.metrics` and :mod:`.counters`: the Prometheus metrics, counted by each part
  through the interface it declares and read from the others when scraped, on a
  listener of their own (:class:`.metrics.OpsListener`);
- :mod:`.admin_cli`: ``nimmt admin``, the operator's commands on the store beside a
  running server (mute, ban, rename, close tables, reset ratings, backups, the schema).

It may import the server's basics and the store (the operator's actions are the
store's transactions), nothing else of the server: what it reads of the other parts
comes through the interfaces it declares (:class:`.metrics.Sources`,
:class:`.health.StoreProbe`). The log's lines and fields are the basics' (every part
writes them: :mod:`nimmt.server.base.logs`).
"""
