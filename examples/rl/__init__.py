"""A policy learned with REINFORCE on the vectorised environment; see docs/rl.md."""
