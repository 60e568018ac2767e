"""Examples: a bot of your own (mybot.py) and a policy that learns (rl/)."""
