"""Sign-ins: what a password check costs, that a wrong name costs the same, and that the
event loop keeps serving while passwords are hashed.

Runs a real server in this process (SQLite in a temporary directory) with the default
argon2id costs (or ``--memory``/``--time``) and the sign-in limits lifted, and real
clients over loopback. It measures, over ``--tries`` attempts each, interleaved:

1. the answer time of a sign-in with the right password, a wrong password, a name with
   no account, and a guest's name (no password): medians, and each wrong kind's median
   over the wrong password's (1.0: nothing to tell apart);
2. the same for a server without the dummy check (a name without a password answered at
   once, as a naive server does), side by side: the ratio shows the leak it would be;
3. ping round trips from another client, alone and while ``--burst`` sign-ins run at
   once (``hash_workers`` hash, ``hash_queue`` wait, the rest are refused at once), and
   the sign-ins answered per second.

The last line is one JSON object with every figure. Run::

    .venv/bin/python bench/signin.py --tries 40
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import websockets

from nimmt.client import Client, ServerError
from nimmt.server.base.settings import Settings
from nimmt.server.people import passwords
from nimmt.server.run import running_server

PASSWORD = "correct horse battery"


def settings(tmp: Path, args: argparse.Namespace) -> Settings:
    return Settings(host="127.0.0.1", port=0, db=f"sqlite+aiosqlite:///{tmp / 'n.db'}",
                    data_dir=tmp, argon2_memory=args.memory, argon2_time=args.time,
                    signin_free=1_000_000, signin_address_free=1_000_000,
                    password_checks_per_minute=1_000_000, rate=10_000.0, burst=10_000,
                    player_rate=10_000.0, player_burst=10_000, address_rate=10_000.0,
                    address_burst=10_000, names_per_minute=10_000, bot_workers=1)


async def answer_times(url: str, tries: int) -> dict[str, float]:
    """Median answer time of each kind of sign-in, in ms, interleaved over one connection
    per kind (a refused hello leaves the connection open for the next)."""
    ana = await Client.connect(url, name="Ana")
    await ana.set_password(PASSWORD)
    bob = await Client.connect(url, name="Bob")
    kinds = {"right": ("Ana", PASSWORD), "wrong_password": ("Ana", "not the password"),
             "no_such_name": ("Nobody", "not the password"),
             "guest_name": ("Bob", "not the password")}
    times: dict[str, list[float]] = {k: [] for k in kinds}
    sockets = {k: await websockets.connect(url.replace("http", "ws") + "/ws",
                                           compression=None) for k in kinds}
    for i in range(tries):
        order = list(kinds) if i % 2 else list(reversed(kinds))
        for kind in order:
            name, password = kinds[kind]
            ws = sockets[kind]
            if kind == "right":  # a signed-in connection says hello once: a fresh one
                await ws.close()
                ws = sockets[kind] = await websockets.connect(
                    url.replace("http", "ws") + "/ws", compression=None)
            t = time.perf_counter()
            await ws.send(json.dumps({"type": "hello", "name": name, "password": password}))
            await ws.recv()
            times[kind].append(time.perf_counter() - t)
    for ws in sockets.values():
        await ws.close()
    await ana.close()
    await bob.close()
    return {k: round(statistics.median(v) * 1000, 2) for k, v in times.items()}


async def pings_during(url: str, burst: int) -> dict[str, Any]:
    watcher = await Client.connect(url, name="Watcher")

    async def pings(n: int) -> list[float]:
        out = []
        for _ in range(n):
            t = time.perf_counter()
            await watcher.request({"type": "ping"}, want="pong")
            out.append(time.perf_counter() - t)
            await asyncio.sleep(0.01)
        return out

    alone = await pings(100)

    async def one(i: int) -> str:
        try:
            c = await Client.connect(url, name="Ana", password=f"wrong {i}")
        except ServerError as exc:
            return exc.code
        await c.close()
        return "ok"

    t = time.perf_counter()
    tasks = [asyncio.create_task(one(i)) for i in range(burst)]
    during: list[float] = []
    while not all(task.done() for task in tasks):
        during += await pings(1)
    took = time.perf_counter() - t
    codes = [task.result() for task in tasks]
    await watcher.close()

    def q(xs: list[float], p: float) -> float:
        return round(sorted(xs)[min(len(xs) - 1, int(p * len(xs)))] * 1000, 2)

    checked = codes.count("sign_in_failed")
    return {"ping_alone_p50_ms": q(alone, 0.5), "ping_alone_p99_ms": q(alone, 0.99),
            "ping_during_p50_ms": q(during, 0.5), "ping_during_p99_ms": q(during, 0.99),
            "burst": burst, "checked": checked, "refused_busy": codes.count("sign_in_busy"),
            "checks_per_s": round(checked / took, 1)}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"argon2_memory_kib": args.memory, "argon2_time": args.time}
    with tempfile.TemporaryDirectory() as tmp:
        async with running_server(settings(Path(tmp), args)) as url:
            out["with_dummy_ms"] = await answer_times(url, args.tries)
            out["pings"] = await pings_during(url, args.burst)
    # A naive server: a name without a password is answered without any check.
    real = passwords.Hasher._verify

    def naive(self: passwords.Hasher, stored: str | None, password: str) -> tuple[bool, bool]:
        return (False, False) if stored is None else real(self, stored, password)

    passwords.Hasher._verify = naive  # type: ignore[method-assign]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            async with running_server(settings(Path(tmp), args)) as url:
                out["without_dummy_ms"] = await answer_times(url, args.tries)
    finally:
        passwords.Hasher._verify = real  # type: ignore[method-assign]
    for key in ("with_dummy_ms", "without_dummy_ms"):
        m = out[key]
        out[key.replace("_ms", "_ratio")] = {
            k: round(m[k] / m["wrong_password"], 3) for k in ("no_such_name", "guest_name")}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tries", type=int, default=40)
    parser.add_argument("--burst", type=int, default=16)
    parser.add_argument("--memory", type=int, default=Settings.model_fields["argon2_memory"]
                        .default)
    parser.add_argument("--time", type=int, default=Settings.model_fields["argon2_time"]
                        .default)
    args = parser.parse_args()
    result = asyncio.run(run(args))
    w, n = result["with_dummy_ms"], result["without_dummy_ms"]
    print(f"{'answer median, ms':<22}{'this server':>12}{'no dummy check':>16}")
    for k in ("right", "wrong_password", "no_such_name", "guest_name"):
        print(f"{k:<22}{w[k]:>12.2f}{n[k]:>16.2f}")
    for k in ("no_such_name", "guest_name"):
        print(f"{k + ' / wrong':<22}{result['with_dummy_ratio'][k]:>12.3f}"
              f"{result['without_dummy_ratio'][k]:>16.3f}")
    p = result["pings"]
    print(f"pings alone p50/p99 {p['ping_alone_p50_ms']}/{p['ping_alone_p99_ms']} ms; during "
          f"{p['burst']} sign-ins {p['ping_during_p50_ms']}/{p['ping_during_p99_ms']} ms; "
          f"{p['checked']} checked ({p['checks_per_s']}/s), {p['refused_busy']} refused busy")
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
