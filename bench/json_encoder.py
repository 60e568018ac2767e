"""Would a faster JSON encoder make a table's frames cheaper? Every model the fan-out
writes over whole games (``bench/fanout.py``'s games, captured as they are dumped) is
written again, side by side in one run: by pydantic-core's serializer straight from the
model (what the server does, ``nimmt.wire.base.dump``), and by orjson, which takes plain
Python values, so over ``model_dump()`` (what using it would cost) and over dicts made
beforehand (its floor, a cost the server could not avoid paying elsewhere).

orjson is not one of nimmt's dependencies; put it beside the benchmark::

    .venv/bin/python -m pip install --target build/orjson orjson
    PYTHONPATH=build/orjson .venv/bin/python bench/json_encoder.py --games 2

The last line is one JSON object: microseconds per frame, and the ratios to
pydantic-core's.
"""

from __future__ import annotations

import argparse
import json
import runpy
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from nimmt.server.tables import fanout
from nimmt.wire import base


def frames(players: int, games: int) -> list[BaseModel]:
    """The models the fan-out writes over ``games`` of ``players`` seats."""
    caught: list[BaseModel] = []
    real = base.dump

    def grab(model: BaseModel) -> str:
        caught.append(model)
        return real(model)

    fanout.dump = grab
    argv = sys.argv
    sys.argv = ["fanout.py", "--players", str(players), "--games", str(games)]
    try:
        runpy.run_path(str(Path(__file__).with_name("fanout.py")), run_name="__main__")
    finally:
        sys.argv = argv
        fanout.dump = real
    return caught


def per_frame(write: Callable[[Any], object], items: list[Any], repeat: int) -> float:
    """The best of ``repeat`` passes of ``write`` over ``items``: microseconds per item."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for item in items:
            write(item)
        best = min(best, time.process_time() - start)
    return best * 1e6 / len(items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    try:
        import orjson
    except ImportError:
        sys.exit("orjson is missing: see this benchmark's docstring")
    models = frames(args.players, args.games)
    dicts = [m.model_dump(mode="json") for m in models]
    core = per_frame(base.dump, models, args.repeat)
    dumped = per_frame(lambda m: orjson.dumps(m.model_dump(mode="json")), models, args.repeat)
    ready = per_frame(orjson.dumps, dicts, args.repeat)
    print(f"{len(models)} frames: pydantic-core {core:.2f} us, orjson over model_dump() "
          f"{dumped:.2f} us, orjson over ready dicts {ready:.2f} us")
    print(json.dumps({"frames": len(models), "pydantic_core_us": round(core, 2),
                      "orjson_model_dump_us": round(dumped, 2),
                      "orjson_ready_us": round(ready, 2),
                      "model_dump_ratio": round(dumped / core, 3),
                      "ready_ratio": round(ready / core, 3)}))


if __name__ == "__main__":
    main()
