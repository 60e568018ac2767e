"""Bots: the protocol, the ladder of strengths, and a driver that seats them."""

from __future__ import annotations

from .base import Bot, Budget

__all__ = ["Bot", "Budget"]
