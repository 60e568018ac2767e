"""``nimmt admin backup`` while the database is being written: how long it takes, and
what it costs the writer.

Makes a nimmt store (the server's own migrations) in a temporary directory and fills
its table log to ``--mb`` megabytes, then runs a writer as the server writes (WAL,
``synchronous=NORMAL``, one small transaction every ``--every`` ms, each timed) for
``--seconds`` before the backup and while ``nimmt admin backup`` (a process of its
own, as an operator or a timer runs it) copies the database. Prints the backup's time
and size, the writer's commits and their latency (p50, p99, max) before and during
the backup, side by side, and checks the backup (``PRAGMA integrity_check``). Run::

    .venv/bin/python bench/backup_online.py

The last line is one JSON object of the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from nimmt.server.store import Store

NIMMT = str(Path(sys.executable).parent / "nimmt")


def make_store(db: Path, megabytes: int) -> None:
    """The server's schema, and a table log of about ``megabytes`` MB."""

    async def migrate() -> None:
        store = Store(f"sqlite+aiosqlite:///{db}")
        await store.open()
        await store.close()

    asyncio.run(migrate())
    entry = json.dumps({"player": 3, "card": 42, "deal": list(range(1, 105)), "pad": "x" * 60})
    rows = megabytes * 1_000_000 // (len(entry) + 40)
    with sqlite3.connect(db) as conn:
        conn.executemany("INSERT INTO table_log (table_id, n, kind, data) VALUES (?, ?, ?, ?)",
                         ((1 + i // 1000, 1 + i % 1000, "decision", entry)
                          for i in range(rows)))


def percentile(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))] if values else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=int, default=100, help="size of the table log (MB)")
    ap.add_argument("--every", type=float, default=5.0, help="ms between the writer's commits")
    ap.add_argument("--seconds", type=float, default=3.0, help="writer's time before the backup")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "nimmt.db"
        make_store(db, args.mb)
        size = db.stat().st_size
        commits: list[tuple[float, float]] = []  # (when it began, how long it took)
        stop = threading.Event()

        def writer() -> None:
            conn = sqlite3.connect(db, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=10000")
            n = 0
            while not stop.is_set():
                n += 1
                began = time.perf_counter()
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("INSERT INTO table_log (table_id, n, kind, data) VALUES "
                             "(?, ?, 'chat', '{}')", (10_000_000, n))
                conn.execute("COMMIT")
                commits.append((began, time.perf_counter() - began))
                time.sleep(args.every / 1000)
            conn.close()

        thread = threading.Thread(target=writer)
        thread.start()
        time.sleep(args.seconds)
        start = time.perf_counter()
        done = subprocess.run([NIMMT, "admin", "backup", str(Path(tmp) / "backup.db"),
                               "--db", f"sqlite:///{db}"], capture_output=True, text=True)
        end = time.perf_counter()
        stop.set()
        thread.join()
        if done.returncode != 0:
            sys.exit(done.stderr)
        with sqlite3.connect(Path(tmp) / "backup.db") as check:
            ok = check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        before = [d * 1000 for t, d in commits if t < start]
        during = [d * 1000 for t, d in commits if start <= t < end]
    print(f"database {size / 1e6:.1f} MB; nimmt admin backup took {end - start:.2f} s "
          f"(process start included); backup intact: {ok}")
    print(f"{'writer':<22}{'before':>12}{'during':>12}")
    print(f"{'commits a second':<22}{len(before) / args.seconds:>12.0f}"
          f"{len(during) / (end - start):>12.0f}")
    for name, q in (("p50 ms", 0.5), ("p99 ms", 0.99), ("max ms", 1.0)):
        print(f"{name:<22}{percentile(before, q):>12.2f}{percentile(during, q):>12.2f}")
    print(json.dumps({
        "database_mb": round(size / 1e6, 1), "backup_s": round(end - start, 2), "intact": ok,
        "commits_before": len(before), "commits_during": len(during),
        "p50_before_ms": round(statistics.median(before), 2) if before else None,
        "p50_during_ms": round(statistics.median(during), 2) if during else None,
        "p99_before_ms": round(percentile(before, 0.99), 2),
        "p99_during_ms": round(percentile(during, 0.99), 2),
        "max_before_ms": round(max(before, default=0), 2),
        "max_during_ms": round(max(during, default=0), 2),
    }))


if __name__ == "__main__":
    main()
