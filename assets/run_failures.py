"""What made a run fail, in one line for the person who started it: the user-code error behind
each failed step, and every failed blocking check with its figures. Read from a run's events,
whether the run executed in-process or in a worker (its event log in the instance)."""

from __future__ import annotations

from collections.abc import Iterable

import dagster as dg


def run_events(instance: dg.DagsterInstance, run_id: str) -> list[dg.DagsterEvent]:
    """Every Dagster event a run recorded in the instance's event log."""
    return [e.dagster_event for e in instance.all_logs(run_id) if e.dagster_event is not None]


def _root_cause(error) -> str:
    while error.cause is not None:
        error = error.cause
    return error.message.strip()


def failure_message(events: Iterable[dg.DagsterEvent]) -> str:
    messages: list[str] = []
    run_failure: str | None = None
    for event in events:
        if event.is_step_failure:
            err = event.step_failure_data.error
            # The user-code error is the cause of Dagster's wrapper exception.
            while err is not None and err.cause is not None:
                err = err.cause
            if err is not None:
                messages.append(err.message.strip())
        elif event.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION:
            evaluation = event.asset_check_evaluation_data
            if not evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.ERROR:
                figures = ", ".join(
                    f"{k}={getattr(v, 'value', v)}" for k, v in (evaluation.metadata or {}).items()
                )
                messages.append(
                    f"check {evaluation.asset_key.to_user_string()}/{evaluation.check_name} failed"
                    + (f" ({figures})" if figures else "")
                )
        elif event.event_type == dg.DagsterEventType.RUN_FAILURE and event.message:
            run_failure = event.message.strip()
            error = getattr(event.event_specific_data, "error", None)
            if error is not None:
                run_failure += f": {_root_cause(error)}"
        elif event.event_type == dg.DagsterEventType.ENGINE_EVENT:
            error = getattr(event.event_specific_data, "error", None)
            if error is not None:
                messages.append(f"{(event.message or '').strip()} {_root_cause(error)}".strip())
    if not messages and run_failure:
        messages.append(run_failure)
    return "; ".join(dict.fromkeys(messages)) or "run failed (see the Dagster UI for its event log)"
