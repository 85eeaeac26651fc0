"""Versioned extraction prompts (package data: `extract_v1.md`, ...)."""
