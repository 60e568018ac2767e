"""The server speaks the wire: every error code it raises is one the wire declares, and it
serves the wire's JSON Schema."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from server_helpers import api

from nimmt import wire as P

ROOT = Path(__file__).resolve().parents[2]


def test_every_code_the_server_raises_is_known() -> None:
    used: set[str] = set()
    for path in (ROOT / "src" / "nimmt" / "server").rglob("*.py"):
        text = path.read_text()
        used |= set(re.findall(r'ProtocolError\(\s*"(\w+)"', text))
        used |= set(re.findall(r'\.(?:_error|error)\(\s*(?:\w+(?:\[\d\])?, )?"(\w+)"', text))
    assert used and used <= set(P.ErrorCode), used - set(P.ErrorCode)


@pytest.mark.asyncio
@pytest.mark.timeout(300)
async def test_schema_is_served(server: str) -> None:
    assert await api(f"{server}/protocol.json") == json.loads(json.dumps(P.protocol_schema()))
    info = await api(f"{server}/api")
    assert info["websocket"] == "/ws" and info["protocol"] == P.PROTOCOL_VERSION
