"""Rollouts on Ray (the optional extra ``gammon[ray]``, in the test extra): a local Ray instance gives the local run's result."""

from __future__ import annotations

from functools import partial

import numpy as np
import ray

from gammon import Position
from gammon.players import load_player
from gammon.rollout import rollout


def test_a_rollout_on_local_ray_equals_the_local_run() -> None:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        player = partial(load_player, "pubeval")
        on_ray = rollout(Position(), player, trials=80, seed=5, truncate=8, ray="auto")
        local = rollout(Position(), player, trials=80, seed=5, truncate=8, workers=1)
        cubeful_on_ray = rollout(Position(), player, trials=40, seed=5, truncate=4, cube=True, ray="auto")
        cubeful_local = rollout(Position(), player, trials=40, seed=5, truncate=4, cube=True)
    finally:
        ray.shutdown()
    assert on_ray.trials == local.trials == 80
    assert np.array_equal(on_ray.samples, local.samples, equal_nan=True)
    assert on_ray.as_dict() == local.as_dict()
    assert np.array_equal(cubeful_on_ray.samples, cubeful_local.samples)
