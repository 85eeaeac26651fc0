"""The one door to Dagster's private modules (`dagster._*`).

Dagster's public API has no run launcher base class, no way to serve the run queue or execute a
run in a process of our own, and no dask step hook; the run queue, the fork-server launcher and
the pickled-run dask executor need those. Private modules move between releases without notice,
so every such name is imported here and nowhere else: an upgrade is checked by reading this one
module against the new release, then moving WRITTEN_AGAINST (tests/test_dagster_private.py
fails until someone has).

Names are resolved on first use (PEP 562), so a process that only opens the instance (and with
it the run launcher) does not pay for the daemon and workspace modules the run queue needs,
about a second of imports. Names that are private in Dagster (`_create_run`) lose their
underscore here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# The release every name below was read against (pyproject.toml allows dagster 1.13.x).
WRITTEN_AGAINST = "1.13.27"

# Modules named by string rather than imported: the run launcher's fork server preloads them.
# A renamed module would not fail loudly there (the preload just loses its warm start), hence
# they are fenced and resolved by the test like the names.
RUN_API_MODULES = ("dagster._cli.api",)
INSTANCE_OPEN_MODULES = (
    "dagster._core.instance.factory",
    "dagster._core.storage.migration.utils",
    "dagster._core.executor.in_process",
)

# name here -> (module, name there)
PRIVATE_NAMES: dict[str, tuple[str, str]] = {
    # the fork-server run launcher (pipelines/run_launcher.py)
    "CheckRunHealthResult": ("dagster._core.launcher", "CheckRunHealthResult"),
    "LaunchRunContext": ("dagster._core.launcher", "LaunchRunContext"),
    "RunLauncher": ("dagster._core.launcher", "RunLauncher"),
    "WorkerStatus": ("dagster._core.launcher", "WorkerStatus"),
    "ConfigurableClass": ("dagster._serdes", "ConfigurableClass"),
    "ConfigurableClassData": ("dagster._serdes", "ConfigurableClassData"),
    "execute_run_command_body": ("dagster._cli.api", "_execute_run_command_body"),
    # the run queue served by ingest itself (pipelines/run_queue.py)
    "create_run": ("dagster._cli.job", "_create_run"),
    "InProcessCodeLocationOrigin": ("dagster._core.remote_origin", "InProcessCodeLocationOrigin"),
    "LoadableTargetOrigin": ("dagster._core.types.loadable_target_origin", "LoadableTargetOrigin"),
    "WorkspaceProcessContext": ("dagster._core.workspace.context", "WorkspaceProcessContext"),
    "InProcessWorkspaceLoadTarget": (
        "dagster._core.workspace.load_target",
        "InProcessWorkspaceLoadTarget",
    ),
    "QueuedRunCoordinatorDaemon": (
        "dagster._daemon.run_coordinator.queued_run_coordinator_daemon",
        "QueuedRunCoordinatorDaemon",
    ),
    "DaemonHeartbeat": ("dagster._daemon.types", "DaemonHeartbeat"),
    # the dask executor with pickled runs (pipelines/dask_executor.py)
    "ReconstructableJob": ("dagster._core.definitions.reconstruct", "ReconstructableJob"),
    "raise_execution_interrupts": ("dagster._core.errors", "raise_execution_interrupts"),
    "ExecutionPlan": ("dagster._core.execution.plan.plan", "ExecutionPlan"),
    "KnownExecutionState": ("dagster._core.execution.plan.state", "KnownExecutionState"),
    "InstanceRef": ("dagster._core.instance.ref", "InstanceRef"),
    "iterate_with_context": ("dagster._utils", "iterate_with_context"),
    # the job type define_asset_job returns (pipelines/removal.py)
    "UnresolvedAssetJobDefinition": (
        "dagster._core.definitions.unresolved_asset_job_definition",
        "UnresolvedAssetJobDefinition",
    ),
}

__all__ = [
    "INSTANCE_OPEN_MODULES",
    "PRIVATE_NAMES",
    "RUN_API_MODULES",
    "WRITTEN_AGAINST",
    "CheckRunHealthResult",
    "ConfigurableClass",
    "ConfigurableClassData",
    "DaemonHeartbeat",
    "ExecutionPlan",
    "InProcessCodeLocationOrigin",
    "InProcessWorkspaceLoadTarget",
    "InstanceRef",
    "KnownExecutionState",
    "LaunchRunContext",
    "LoadableTargetOrigin",
    "QueuedRunCoordinatorDaemon",
    "ReconstructableJob",
    "RunLauncher",
    "UnresolvedAssetJobDefinition",
    "WorkerStatus",
    "WorkspaceProcessContext",
    "create_run",
    "execute_run_command_body",
    "iterate_with_context",
    "raise_execution_interrupts",
]

if TYPE_CHECKING:
    # The same names for the type checker, which does not run __getattr__;
    # tests/test_dagster_private.py keeps this block, __all__ and PRIVATE_NAMES equal.
    from dagster._cli.api import _execute_run_command_body as execute_run_command_body
    from dagster._cli.job import _create_run as create_run
    from dagster._core.definitions.reconstruct import ReconstructableJob
    from dagster._core.definitions.unresolved_asset_job_definition import (
        UnresolvedAssetJobDefinition,
    )
    from dagster._core.errors import raise_execution_interrupts
    from dagster._core.execution.plan.plan import ExecutionPlan
    from dagster._core.execution.plan.state import KnownExecutionState
    from dagster._core.instance.ref import InstanceRef
    from dagster._core.launcher import (
        CheckRunHealthResult,
        LaunchRunContext,
        RunLauncher,
        WorkerStatus,
    )
    from dagster._core.remote_origin import (
        InProcessCodeLocationOrigin,
    )
    from dagster._core.types.loadable_target_origin import (
        LoadableTargetOrigin,
    )
    from dagster._core.workspace.context import WorkspaceProcessContext
    from dagster._core.workspace.load_target import (
        InProcessWorkspaceLoadTarget,
    )
    from dagster._daemon.run_coordinator.queued_run_coordinator_daemon import (
        QueuedRunCoordinatorDaemon,
    )
    from dagster._daemon.types import DaemonHeartbeat
    from dagster._serdes import (
        ConfigurableClass,
        ConfigurableClassData,
    )
    from dagster._utils import iterate_with_context


def __getattr__(name: str) -> Any:
    if name not in PRIVATE_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = PRIVATE_NAMES[name]
    # No cache needed: sys.modules keeps the module, and importers bind the name themselves.
    return getattr(importlib.import_module(module), attribute)
