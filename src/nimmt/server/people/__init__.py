"""The people: who a connection is, and the room around the tables.

- :mod:`.accounts`: ``hello`` (a token, a sign-in, a recovery, a new guest) and the
  account messages; :mod:`.passwords`: argon2id off the event loop;
- :mod:`.roster`: each player's connections here, and when they were last seen;
- :mod:`.sanctions`: the operator's mutes and bans in force;
- :mod:`.signals`: what every process must act on at once (sessions ended, bans,
  renames, tables closed, lines written elsewhere), and the housekeeping;
- :mod:`.social`: follows, mutes and blocks, reports, invitations, the lobby chat and
  private messages; :mod:`.delivery`: stored lines to the connections that hear them,
  each once, in order; :mod:`.presence`: where a player is, pushed to their followers;
  :mod:`.online`: who is connected, pushed to the lobby's listeners;
- :mod:`.leaderboards`: the leaderboard's pages and the read limit of the player pages.

It may import the server's basics and the store, nothing else of the server: a
connection is a :class:`.members.Member` here, the tables are :class:`.members.Rooms`
and a table one asks to sit at is :class:`.members.Seating`, interfaces the
composition root answers.
"""
