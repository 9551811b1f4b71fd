"""The outputs a workflow's DAG puts in the HTML report, with what their captions are rendered from.

Builds the DAG of the Snakefile under the given config files (no job runs) and pickles, for each output
marked with ``report()``: (caption file, rule, params, wildcards, config). Run in a subprocess, in the
working folder to use, so that the workflow's start-up (import path, paper registry) stays out of the
caller's process:

    python tests/report_jobs.py SNAKEFILE OUT.pickle CONFIG [CONFIG ...]
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

from snakemake.api import SnakemakeApi
from snakemake.io import is_flagged
from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings


def report_jobs(snakefile: Path, configfiles: list[Path]) -> list[tuple]:
    """(caption, rule, params, wildcards, config) of every report output of the DAG of ``snakefile``."""
    with SnakemakeApi(OutputSettings()) as api:
        workflow_api = api.workflow(resource_settings=ResourceSettings(cores=1),
                                    config_settings=ConfigSettings(configfiles=configfiles),
                                    snakefile=snakefile, workdir=Path.cwd())
        workflow_api.dag(DAGSettings())
        workflow = workflow_api._workflow  # Snakemake has no public API for a DAG's jobs
        workflow._prepare_dag(forceall=False, ignore_incomplete=True, lock_warn_only=True, nolock=True)
        workflow._build_dag()
        return [(str(f.flags["report"].caption), job.rule.name, dict(job.params.items()), dict(job.wildcards.items()),
                 dict(workflow.config))
                for job in workflow.dag.jobs for f in job.output if is_flagged(f, "report")]


if __name__ == "__main__":
    snakefile, out, *configs = map(Path, sys.argv[1:])
    Path(out).write_bytes(pickle.dumps(report_jobs(snakefile, configs)))
