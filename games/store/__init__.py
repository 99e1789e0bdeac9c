"""The event store: every read and write of a game's log, one job a module.

- ``log``: the log itself. Lock a game, read it with its seats, fold its state, and ``append``,
  the one way events enter it (with the next deal when due, their read models and the signals).
- ``records``: the read models written with the events (the game row, the seats' flags, the
  hand and cama records, the hand snapshots).
- ``recent``: the states this process served lately, kept in memory.
- ``batch_read``: the streams' read of many games and their next events at once.
- ``sql``: the hand-written SQL of the above, PostgreSQL's only; on SQLite they use the ORM.

Import from the modules: this package re-exports nothing.
"""
