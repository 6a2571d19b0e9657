"""Harnesses."""
