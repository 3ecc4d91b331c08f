"""heal."""
