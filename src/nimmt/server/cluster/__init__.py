"""Many server processes, one set of tables: leases, fencing tokens and frames through Redis.

:mod:`.node` (:class:`Cluster`, this process's part) has the design; the leases and the
heartbeat are :mod:`.leases`, the frames between processes :mod:`.relay` (sealed and
read by :mod:`.nodewire`), the two sides of a connection whose table is elsewhere
:mod:`.peers`, the lobby :mod:`.lobby`, the HTTP reads sent to an owner :mod:`.reads`.

It may import the server's basics, the store and the tables (which it moves between
processes), nothing else of the server: what it needs of the process it runs in is
:class:`.ports.ClusterHost`, answered by the composition root.
"""

from .lobby import lobby_entry
from .node import Cluster
from .peers import RemotePeer, RemoteTable

__all__ = ["Cluster", "RemotePeer", "RemoteTable", "lobby_entry"]
