"""Operations: executors, schedules, sensors, and the ingestion report's checks."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class OperationsSettings(BaseSettings):
    """How Dagster runs the work: the instance's run queue and pools, the executor, the
    instance storage, sensors and schedules."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_DAGSTER_", extra="ignore")

    max_concurrent_runs: int = Field(
        default_factory=lambda: (os.cpu_count() or 1) + 1,
        ge=1,
        description="runs the queue lets go at once (default: one per core and one more, run at "
        "GRAPHRAG_DAGSTER_EXTRA_RUN_NICENESS, which fills the cores while the others wait)",
    )
    extra_run_niceness: int = Field(
        10,
        ge=0,
        le=19,
        description="niceness of a run launched while the others already fill "
        "every core: it takes a core only while another run waits (on disk, or starting)",
    )
    edgar_pool_limit: int = Field(
        4,
        ge=1,
        description="steps that call EDGAR at once, across runs (pool `edgar`); the "
        "request rate itself is held under SEC's limit by the shared token bucket",
    )
    extractor_pool_limit: int = Field(
        4,
        ge=1,
        description="extraction steps at once, across runs (pool `extractor`); each sends "
        "up to EXTRACTOR_CONCURRENCY requests, so the model server sees at most their product",
    )
    executor: Literal["in_process", "multiprocess", "dask"] = Field(
        "in_process",
        description="how a run executes its steps: in its own process (parallelism "
        "comes from concurrent runs), one process per step, or on a dask.distributed cluster",
    )
    dask_address: str | None = Field(
        None,
        description="scheduler of an existing dask.distributed cluster, tcp://host:8786 "
        "(executor=dask)",
    )
    postgres_url: SecretStr | None = Field(
        None,
        description="postgresql://user:password@host:port/db: the instance's runs, event "
        "logs and schedules in PostgreSQL instead of SQLite under the data root",
    )
    run_timeout_s: float = Field(
        3 * 3600.0, gt=0, description="`filings-graph ingest` gives up waiting for a run after this"
    )
    poll_interval_s: float = Field(0.5, gt=0, description="how often ingest looks at its runs")
    dequeue_interval_s: float = Field(
        1.0,
        gt=0,
        description="when ingest serves the run queue itself (no dagster-daemon alive): "
        "how often it lets queued runs go at least; it does at once when it submits a run or "
        "one of its runs' workers exits",
    )
    sensor_interval_s: int = Field(
        900, ge=30, description="minimum seconds between two ticks of the EDGAR sensor"
    )
    inbox_interval_s: int = Field(
        60, ge=5, description="minimum seconds between two ticks of the local_inbox sensor"
    )
    inbox: Path | None = Field(
        None, description="folder the local_inbox sensor watches (default <data root>/inbox)"
    )
    snapshot_cron: str = Field("0 2 * * *", description="when the nightly snapshot publish runs")
    timezone: str = Field("UTC", description="time zone of the schedules")


class ReportSettings(BaseSettings):
    """The ingestion report and the checks that compare a run with the runs before it."""

    model_config = SettingsConfigDict(env_prefix="GRAPHRAG_REPORT_", extra="ignore")

    baseline_window: int = Field(
        50, ge=3, description="filings whose rejection rates make the rolling baseline"
    )
    baseline_min_filings: int = Field(
        5,
        ge=1,
        description="below this many judged filings there is no baseline yet, and the "
        "fixed EXTRACTOR_REJECTION_RATE_THRESHOLD applies",
    )
    spike_margin: float = Field(
        0.15,
        ge=0,
        le=1,
        description="a filing's rejection rate fails when it exceeds the "
        "baseline (median) by more than this, or by three median absolute deviations if larger",
    )
    snapshot_max_age_h: float = Field(
        36.0, gt=0, description="the snapshot_fresh check fails when the current snapshot is older"
    )
    history_runs: int = Field(30, ge=2, description="runs shown in the rejection-rate chart")
