"""Floor 3 engines of scale: the fast kernel of the rules and the arena."""
