"""Text rules below every layer: what a memory line is."""
