"""dagster-dask's executor, with the run handed to the workers pickled.

dagster-dask submits each step with the `DagsterRun` as a task argument; dask packs task
arguments with msgpack, which walks tuples, and a run of a job with pools carries a
`RunOpConcurrency` record that refuses to be iterated ("Iteration is not allowed on `@record`
RunOpConcurrency"). Pickling the run first makes it opaque bytes to msgpack. Everything else
(one dask task per step, dependencies as futures, events returned to the orchestrating run) is
dagster-dask's own code path.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import dagster as dg
from dagster_dask.executor import (
    DaskExecutor,
    dask_executor,
    get_dask_resource_requirements,
    query_on_dask_worker,
)

from pipelines.dagster_private import (
    ExecutionPlan,
    InstanceRef,
    KnownExecutionState,
    ReconstructableJob,
    iterate_with_context,
    raise_execution_interrupts,
)


def _run_step_on_worker(
    dependencies: Any,
    recon_job: ReconstructableJob,
    pickled_run: bytes,
    run_config: Mapping[str, object] | None,
    step_keys: Sequence[str] | None,
    instance_ref: InstanceRef,
    known_state: KnownExecutionState | None,
) -> Sequence[dg.DagsterEvent]:
    return query_on_dask_worker(
        dependencies,
        recon_job,
        pickle.loads(pickled_run),
        run_config,
        step_keys,
        instance_ref,
        known_state,
    )


class PickledRunDaskExecutor(DaskExecutor):
    def execute(
        self, plan_context: Any, execution_plan: ExecutionPlan
    ) -> Iterator[dg.DagsterEvent]:
        import dask.distributed

        if not plan_context.instance.is_persistent:
            raise dg.DagsterInvariantViolationError(
                "dask execution needs a persistent instance (SQLite under the data root, or "
                "PostgreSQL), not an ephemeral one"
            )
        if self.cluster_type != "existing":
            yield from super().execute(plan_context, execution_plan)
            return
        instance_ref = plan_context.instance.get_ref()
        pickled_run = pickle.dumps(plan_context.dagster_run)
        with dask.distributed.Client(self.cluster_configuration["address"]) as client:
            futures: dict[str, Any] = {}
            for level in execution_plan.get_steps_to_execute_by_level():
                for step in level:
                    dependencies = [
                        futures[key]
                        for step_input in step.step_inputs
                        for key in step_input.dependency_keys
                    ]
                    futures[step.key] = client.submit(
                        _run_step_on_worker,
                        dependencies,
                        plan_context.reconstructable_job,
                        pickled_run,
                        plan_context.run_config,
                        [step.key],
                        instance_ref,
                        execution_plan.known_state,
                        key=f"{plan_context.job_name}.{step.key}.{plan_context.run_id[:8]}",
                        resources=get_dask_resource_requirements(step.tags),
                    )
            completed = dask.distributed.as_completed(list(futures.values()), with_results=True)
            for _future, result in iterate_with_context(raise_execution_interrupts, completed):
                yield from result


@dg.executor(
    name="dask",
    requirements=dg.multiple_process_executor_requirements(),
    config_schema=dask_executor.config_schema.as_field(),
)
def pickled_run_dask_executor(init_context: dg.InitExecutorContext) -> PickledRunDaskExecutor:
    cluster: dict[str, Any] = dict(init_context.executor_config["cluster"])  # type: ignore[call-overload]
    ((cluster_type, cluster_configuration),) = cluster.items()
    return PickledRunDaskExecutor(cluster_type, cluster_configuration)
