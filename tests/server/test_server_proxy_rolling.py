"""docs/deploy.md's room of several processes, run as written: two instances of its
``nimmt@.service`` template (their command, with the port of each) over one PostgreSQL
and Redis, behind nginx with its site and its ``upstream`` block, TLS with a
certificate made for the test. The processes are restarted one after the other with
SIGTERM while games are played through the proxy, and nothing is lost.

Unlike tests/server/test_server_rolling.py, no player knows which process it is on:
each reconnects to the proxy's one address, and nginx passes it to whichever process
listens (the draining one has stopped listening).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
import rolling_helpers as rolling
from server_helpers import NIMMT

from deploy_helpers import doc_block, doc_env, fill, nginx_proxy

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(600)]


def template_command() -> list[str]:
    """The ``ExecStart`` of docs/deploy.md's ``nimmt@.service``, with this machine's
    ``nimmt`` and ``{port}`` for the instance's name."""
    unit = fill(doc_block("nimmt@.service"), {"/opt/nimmt/bin/nimmt": NIMMT})
    line = next(ln for ln in unit.splitlines() if ln.startswith("ExecStart="))
    argv = shlex.split(line.removeprefix("ExecStart="))
    assert "%i" in argv, line
    return [arg.replace("%i", "{port}") for arg in argv]


async def test_a_rolling_restart_behind_the_proxy_loses_nothing(
        rolling_env: dict[str, str], pg_url: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The document's settings (its trusted proxy among them), the cluster's on top.
    env = {**rolling_env, **doc_env({
        "NIMMT_DATA_DIR": rolling_env["NIMMT_DATA_DIR"],
        "NUMBA_CACHE_DIR": os.environ.get("NUMBA_CACHE_DIR", "")})}
    if not env["NUMBA_CACHE_DIR"]:
        del env["NUMBA_CACHE_DIR"]
    command = template_command()
    a, b = (rolling.Process(env, tmp_path, name, command) for name in ("a", "b"))
    await a.start()
    await b.start()
    seats: list[rolling.Seat] = []
    try:
        with nginx_proxy(servers=[a.port, b.port]) as proxy:
            monkeypatch.setenv("SSL_CERT_FILE", str(proxy.ca))
            codes, seats = await rolling.seat_tables([(proxy.url, proxy.url)] * 4)
            threads, stop = rolling.play_all(seats)
            drains: list[float] = []
            for proc in (a, b):
                since = [len(s.decisions) for s in seats]
                await rolling.wait_for(lambda since=since: rolling.moved_on(seats, since),
                               "play before a restart", detail=lambda: rolling.seats_detail(seats))
                backs = sum(s.backs for s in seats)
                drains.append(await proc.stop())
                await proc.start()
                # The players that were on it came back through the proxy ...
                await rolling.wait_for(lambda backs=backs: sum(s.backs for s in seats) > backs,
                               "reconnected", detail=lambda: rolling.seats_detail(seats))
                # ... and everyone plays on.
                since = [len(s.decisions) for s in seats]
                await rolling.wait_for(lambda since=since: rolling.moved_on(seats, since),
                               "play after a restart", detail=lambda: rolling.seats_detail(seats))
            await rolling.nothing_lost(seats, threads, stop, codes, drains, (a, b), pg_url)
    finally:
        rolling.close_all(seats, (a, b))
