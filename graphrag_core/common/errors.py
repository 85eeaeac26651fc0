"""Errors that name the file, the field and the fix.

A `FilingError` fails one filing's partition and nothing else; the message is written for the
data engineer reading the Dagster run log, so it always says what to do next.
"""

from __future__ import annotations


class GraphragError(Exception):
    """Base class of every error this project raises on purpose."""


class FilingError(GraphragError):
    """A filing (or one of its documents) cannot be processed as it is."""

    def __init__(self, source: str, problem: str, fix: str, field: str | None = None):
        self.source = source
        self.problem = problem
        self.fix = fix
        self.field = field
        where = f"{source}" + (f" [{field}]" if field else "")
        super().__init__(f"{where}: {problem}. Fix: {fix}")


class EmptyDocumentError(FilingError):
    pass


class BinaryDocumentError(FilingError):
    pass


class DocumentTooLargeError(FilingError):
    pass


class UnsafePathError(GraphragError):
    """A path to write or delete lies outside the root it belongs under (after resolving its
    symlinks); nothing was written or deleted."""


class ConfigurationError(GraphragError):
    """A setting is missing or wrong; the message names the setting and how to set it."""
