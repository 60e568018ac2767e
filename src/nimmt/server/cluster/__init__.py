"""Many server processes, one set of tables (:mod:`.node`)."""

from .node import Cluster, RemotePeer, RemoteTable, lobby_entry

__all__ = ["Cluster", "RemotePeer", "RemoteTable", "lobby_entry"]
