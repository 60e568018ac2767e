"""A table's clock and bots: the reducer's timers and bot questions, run on asyncio.

The reducer (:mod:`.reducer`) decides which timers run (turn timers,
disconnect grace, idle close) and which seats a bot or the default player must
answer for; it says so with :class:`~.commands.StartTimer`,
:class:`~.commands.CancelTimer` and :class:`~.commands.AskBot`. The
:class:`Scheduler` turns those into ``call_later`` handles and bot-pool jobs,
and everything that comes back (a timer running out, a bot's answer) comes
back as a command through the table's queue, like everything else that
happens to a table.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..workers.botpool import BotPool, Owner, decision_seed, lane_of
from .commands import AskBot, BotAnswered, Command, StartTimer, Timer, TimerFired

__all__ = ["Scheduler"]


class Scheduler:
    """The running timers and bot jobs of one table (``post`` puts a command on its queue)."""

    def __init__(self, post: Callable[[Command], None], bots: BotPool, owner: Owner,
                 table_id: int) -> None:
        self.post = post
        self.bots = bots
        self.owner = owner
        self.table_id = table_id
        self._timers: dict[Timer, asyncio.TimerHandle] = {}
        self._jobs: set[asyncio.Task[None]] = set()

    def start(self, effect: StartTimer) -> None:
        """Start a timer; when it runs out, :class:`~.commands.TimerFired` is posted."""
        self.cancel(effect.timer)
        loop = asyncio.get_running_loop()
        fired = TimerFired(effect.timer, effect.deadline)
        self._timers[effect.timer] = loop.call_later(effect.seconds, self._fire, fired)

    def _fire(self, fired: TimerFired) -> None:
        self._timers.pop(fired.timer, None)
        self.post(fired)

    def cancel(self, timer: Timer) -> None:
        handle = self._timers.pop(timer, None)
        if handle is not None:
            handle.cancel()

    def ask(self, effect: AskBot) -> None:
        """Ask the bot pool (worker processes, fair across tables; see :mod:`.botpool`);
        its answer is posted as :class:`~.commands.BotAnswered`."""
        task = asyncio.create_task(self._think(effect))
        self._jobs.add(task)
        task.add_done_callback(self._jobs.discard)

    async def _think(self, effect: AskBot) -> None:
        # The seed comes from the table, the seat and the decision's key, so the answer does
        # not depend on which worker gave it (and a replayed table asks the same questions).
        seed = decision_seed(self.table_id, effect.seat, effect.key)
        asked = asyncio.get_running_loop().time()
        answer = await self.bots.decide(self.owner, effect.seat, effect.bot, seed, effect.view)
        if self.bots.metrics is not None:
            self.bots.metrics.bot_decision(lane_of(effect.bot), answer,
                                           asyncio.get_running_loop().time() - asked)
        timed_out = answer.fault is not None and answer.fault.kind == "timeout"
        self.post(BotAnswered(effect.seat, effect.key, answer.decision, timed_out))

    def wake(self) -> None:
        """A person is back at this table: its bot jobs come first again."""
        self.bots.wake()

    def stop(self) -> None:
        """Cancel every timer and bot job (the table closed, or the server stops); a closed
        table's bots stop thinking, their queued jobs too."""
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        for job in list(self._jobs):
            job.cancel()
