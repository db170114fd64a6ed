"""The class's JupyterHub spawner (classroom/jupyterhub_config.py): LocalProcessSpawner, with each
student held to ``mem_limit`` in all, their server and kernels together (tools/classroom.py's
``cap_memory``: a cgroup where root can make one, else a limit per process). One student's runaway
cell stops their own kernel, not the machine or a classmate's work."""
from __future__ import annotations

import os

from jupyterhub.spawner import LocalProcessSpawner

from tools import classroom


class CappedSpawner(LocalProcessSpawner):
    """LocalProcessSpawner that caps each user's memory (``c.Spawner.mem_limit``)."""

    def make_preexec_fn(self, name):
        become_user = super().make_preexec_fn(name)
        limit = int(self.mem_limit or 0)

        def preexec():
            if limit and os.geteuid() == 0:
                classroom.cap_memory(name, limit)
            become_user()
        return preexec
