"""Imported last by the run launcher's fork server, after every preloaded module and the
project's Definitions: it moves the fork server's objects to the garbage collector's permanent
generation (`gc.freeze`), as Python's documentation advises before forking without exec. A
run worker's collections then never walk the millions of preloaded objects, and so never write
to (and copy) the memory pages they share with the fork server."""

from __future__ import annotations

import gc

gc.freeze()
