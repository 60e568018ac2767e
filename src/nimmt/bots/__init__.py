"""Bots: the protocol, the ladder of strengths, and a driver that seats them."""

from __future__ import annotations

from .base import Bot, Budget
from .registry import BOTS, STRENGTHS, BotError, describe_bots, make_bot

__all__ = ["BOTS", "STRENGTHS", "Bot", "BotError", "Budget", "describe_bots", "make_bot"]
