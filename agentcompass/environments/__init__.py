"""Environment providers."""
