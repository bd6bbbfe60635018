"""Filled by its issue."""
