"""Dream for many workspaces across machines, on Celery workers with a Redis broker (``reverie
fleet``).

Redis holds what must be shared and may be lost: the due index, a lease per workspace and the
admission budget (`coord`). Correctness stays in the workspaces on the shared file system: each job
bumps the workspace's fencing epoch and Dream's write fence (``reverie.dream.fence``) refuses a
stale job's commit, so a batch is committed at most once whatever Redis or Celery do. `Fleet` is the
library (mark, dispatch, rebuild, status); `app` the Celery application; `job` one job. Celery and
redis-py are the ``fleet`` extra, imported only here. See docs/scale.md.
"""

from __future__ import annotations

from .coord import Coordinator, FleetState
from .fleet import Fleet, RebuildReport
from .job import JobOutcome

__all__ = ["Fleet", "Coordinator", "FleetState", "RebuildReport", "JobOutcome"]
