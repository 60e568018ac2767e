"""Work done outside the event loop: bots, hints, analyses and heavy reads.

- :mod:`.botpool` (the server's side) and :mod:`.botworker` (the worker's): bots think
  in worker processes, in two lanes (quick and search), fairly across tables, within
  their budget; :mod:`.autoplay`: the default player, which answers for a bot that
  fails and for a person the table plays for.
- :mod:`.tutor` and :mod:`.tutorworker`: hints and game analyses, in lanes of their own.
- :mod:`.workerproc` and :mod:`.lifeline`: starting, framing and stopping a worker
  process; none outlives its server.
- :mod:`.heavyreads`: replays, records and pages built in read threads or processes,
  with their cache and their limits per address.

It may import the server's basics (:mod:`nimmt.server.base`) and floors 1–3 outside the
server (the bots, the search kernel), nothing else of the server; it counts into the
metrics through the interfaces it declares (:class:`.botpool.BotCounts`,
:class:`.tutor.AdviceCounts`).
"""
