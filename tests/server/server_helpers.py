"""Helpers of the server tests: seat a table, play it out, fetch records."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from nimmt.client import Client
from nimmt.wire import Error, TableState

NIMMT = str(Path(sys.executable).parent / "nimmt")

#: The environment that lifts the limits per player and per address for a server in its own
#: process: every player of a test is on one address and plays at machine speed.
LIFTED_LIMITS = {
    "NIMMT_RATE": "10000", "NIMMT_BURST": "10000",
    "NIMMT_PLAYER_RATE": "10000", "NIMMT_PLAYER_BURST": "10000",
    "NIMMT_ADDRESS_RATE": "10000", "NIMMT_ADDRESS_BURST": "10000",
    "NIMMT_ADDRESS_BYTES": "1e9", "NIMMT_ADDRESS_BYTES_BURST": "1000000000",
    "NIMMT_NAMES_PER_MINUTE": "1000",
    "NIMMT_RUNNING_PER_ADDRESS": "1000",
    "NIMMT_READ_RATE": "10000", "NIMMT_READ_BURST": "10000",
    "NIMMT_SPEECH_RATE": "10000", "NIMMT_SPEECH_BURST": "10000",
    "NIMMT_SPEECH_ADDRESS_RATE": "10000", "NIMMT_SPEECH_ADDRESS_BURST": "10000",
    "NIMMT_SEARCH_BOTS_PER_HOST": "1000", "NIMMT_SEARCH_BOTS_PER_ADDRESS": "10000",
    # Bots keep no pause after a reveal for people to hear it: tests play at once.
    "NIMMT_REVEAL_PACE": "0",
    "NIMMT_ROUND_PAUSE": "0",
    "NIMMT_LISTEN_CPS": "0",
}


async def start_server(args: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """``nimmt serve`` in its own process on a free port; its address once it listens."""
    proc = subprocess.Popen(
        [NIMMT, "serve", "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env,
    )
    assert proc.stdout is not None
    line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 60)
    assert "open http://" in line, (line, proc.stderr.read() if proc.poll() is not None else "")
    url = line.split("open ", 1)[1].split("/ ", 1)[0]
    return proc, url


async def eventually(check: Callable[[], Awaitable[bool]], what: str,
                     timeout: float = 60) -> None:
    """Wait until ``check()`` holds: for what a server does in its own time (a timer, a
    closed connection counted out, a write after the game). The bound is generous, for a
    busy machine; it never measures speed."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not await check():
        assert loop.time() < end, f"{what}: not within {timeout:g} s"
        await asyncio.sleep(0.05)


async def play_until_key(client: Client, key: str, rng: random.Random) -> None:
    """Answer every prompt (at random) until the prompt ``key`` is asked."""
    answered: set[str] = set()
    while True:
        prompt = client.prompt
        if prompt is not None and prompt.key == key:
            return
        if prompt is not None and prompt.key not in answered:
            answered.add(prompt.key)
            await client.answer(prompt, rng)
            continue
        client.inbox.append(await client.recv())


RULE_SETS: list[dict[str, Any]] = [
    {"preset": "classic", "players": 3},
    {"preset": "category5", "players": 4},
    {"preset": "classic", "players": 3, "variants": ["tactics"], "end": "rounds", "rounds": 2},
    {"preset": "classic", "players": 3, "variants": ["logic"], "end": "rounds", "rounds": 2},
    {"preset": "classic", "players": 4, "variants": ["professional"], "end": "rounds",
     "rounds": 2},
    {"preset": "classic", "players": 4, "variants": ["open"], "end": "rounds", "rounds": 2},
    {"preset": "classic", "players": 3, "variants": ["open-hands"], "end": "rounds",
     "rounds": 2},
    {"preset": "classic", "players": 4, "variants": ["jokers"], "end": "rounds", "rounds": 2},
    {"preset": "category5", "players": 3, "variants": ["tactics", "professional"],
     "end": "elimination", "limit": 20},
]


def rules_id(spec: dict[str, Any]) -> str:
    return "+".join([spec["preset"], *spec.get("variants", [])]) + f"-{spec.get('end', 'c')}"


async def seat_table(
    url: str,
    rules: dict[str, Any],
    humans: int,
    bots: list[str] | None = None,
    *,
    record: bool = False,
    prefix: str = "P",
    **table: Any,
) -> tuple[list[Client], str]:
    """Open a table with ``humans`` clients and bots in the other seats; start it."""
    clients = [await Client.connect(url, name=f"{prefix}{i}", record=record)
               for i in range(humans)]
    host = clients[0]
    state = await host.create_table(rules=rules, **table)
    code = state.table.code
    for c in clients[1:]:
        await c.join(code)
        await c.sit()
    rest = rules["players"] - humans
    for i in range(rest):
        strength = (bots or ["easy"])[i % len(bots or ["easy"])]
        await host.add_bot(strength)
    await host.start()
    return clients, code


async def play_out(clients: list[Client], seed: int = 0, timeout: float = 120) -> None:
    await asyncio.gather(*(c.play_until_over(random.Random(seed + i), timeout)
                           for i, c in enumerate(clients)))


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


async def api(url: str) -> Any:
    return await asyncio.to_thread(get_json, url)


async def close_all(clients: list[Client]) -> None:
    for c in clients:
        await c.close()


async def error_for(client: Client, frame: str | bytes) -> Error:
    """Send a bad frame; the error it gets (a sentence, never a traceback)."""
    await client.send_raw(frame)
    msg = await client.expect(lambda m: isinstance(m, Error), 10)
    assert isinstance(msg, Error)
    assert msg.message and msg.message[0].isalpha()
    return msg


async def state_of(client: Client, code: str) -> dict[str, Any]:
    """What a table looks like to ``client``: to check that bad input changed nothing."""
    state = await client.join(code)
    assert isinstance(state, TableState)
    view = None if state.view is None else state.view.model_dump(mode="json")
    return {"seq": state.seq, "view": view, "seats": state.table.model_dump()["seats"]}
