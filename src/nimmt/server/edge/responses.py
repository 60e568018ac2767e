"""The HTTP answers the edge's routes share: a refused parameter or read, JSON already
encoded, a table read here or at its owner, and a request whose client went away."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ...narrate import Narrator
from ..base.params import BadParam, ReadRefused
from ..tables.reads import TableRead
from .doors import Doors

__all__ = ["ClientGone", "json_bytes_response", "refusal", "refused_response", "table_answer",
           "unless_gone"]

T = TypeVar("T")


def refusal(exc: BadParam) -> JSONResponse:
    """The JSON answer to a refused value: ``{"error": sentence}`` with its status."""
    return JSONResponse({"error": exc.message}, status_code=exc.status)


def refused_response(exc: ReadRefused, speak: Narrator) -> JSONResponse:
    """The HTTP answer to a refused read: its status, ``Retry-After``, and a body that
    says why in English (``error``) and to a person in the language asked for
    (``text``)."""
    return JSONResponse({"error": exc.message, "text": speak.refusal_sentence(exc.code)},
                        status_code=exc.status, headers={"Retry-After": str(exc.retry)})


def json_bytes_response(body: bytes) -> Response:
    """A JSON answer whose body is already encoded (from memory or a read thread)."""
    return Response(body, media_type="application/json")


async def table_answer(doors: Doors, code: str, read: TableRead, missing: str) -> Response:
    """The HTTP answer to ``read`` of table ``code``: its JSON; 404 with ``missing`` if no
    open table has the code; 503 (with ``Retry-After``) when the process that holds the
    table cannot answer now."""
    try:
        text = await doors.read(code, read)
    except ReadRefused as exc:
        return JSONResponse({"error": exc.message}, status_code=exc.status,
                            headers={"Retry-After": str(exc.retry)})
    if text is None:
        return JSONResponse({"error": missing}, status_code=404)
    return Response(text, media_type="application/json")


class ClientGone(Exception):
    """The HTTP client closed its connection before its answer was ready."""


async def unless_gone(request: Request, work: Coroutine[Any, Any, T]) -> T:
    """``work``'s result, unless the client goes away first: then ``work`` is cancelled
    (an analysis nobody else waits for stops computing) and :class:`ClientGone` raised.

    The request has no body to read, so the next message of the ASGI channel is the
    client's disconnect (the server sends it when the connection closes)."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:  # this request is cancelled (the server stops): so is the work
        task.cancel()
        raise
    finally:
        gone.cancel()
    if not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        raise ClientGone
    return task.result()


async def _disconnected(request: Request) -> None:
    """Return when the client of ``request`` has gone."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
