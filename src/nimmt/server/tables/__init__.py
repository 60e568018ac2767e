"""The tables: each table's pure reducer, its thin actor, its fan-out, and the registry of
the tables this process holds (:mod:`.registry`)."""
