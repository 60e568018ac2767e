"""The terminal client (``nimmt play``): a full-screen Textual face and a plain line mode.

Both faces show one :class:`~nimmt.tui.session.Session`: a local game against
bots (:mod:`nimmt.tui.local`) or a table on a server (:mod:`nimmt.tui.remote`).
Textual is needed only by the full-screen face (the ``tui`` extra).
"""
