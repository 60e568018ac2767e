"""What every part of the server shares: its settings (:mod:`.settings`), its log's lines
and fields (:mod:`.logs`), the limits on strangers (:mod:`.limits`), the rules of names
and chat text (:mod:`.text`), the checks of an HTTP request's parameters
(:mod:`.params`) and the quotas taken before an await (:mod:`.quota`).

It may import floors 1–2 and the wire (a refusal is the wire's
:class:`~nimmt.wire.ProtocolError`), nothing else of the server: every other part
imports it.
"""
