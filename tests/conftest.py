"""Shared pytest configuration: the hypothesis profiles.

``ci`` (chosen when the ``CI`` environment variable is set) is derandomized, so a CI failure
reproduces on every run; ``dev`` (the default) explores new examples each run; ``deep`` explores
ten times as many, to hunt for bugs before a release (about an hour for the property tests on
two cores). Select one explicitly with ``pytest --hypothesis-profile=<name>``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

settings.register_profile(
    "ci",
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
    print_blob=True,
    # The explain phase re-runs a failing example under a tracer: slow, and CI only needs
    # the shrunk example and its reproduction blob.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile(
    "deep",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
