"""The pytest plugin of heal-messages (entry point ``pytest11``).

Loaded by pytest at start-up, so it imports nothing from heal (and so no pydantic) until a test
fails with :class:`heal.testing.HistoryAssertionError`; then the failure is reported as the
readable list of issues, with the test's location, instead of a long traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from typing import Any

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome = yield
    testing = sys.modules.get("heal.testing")
    if testing is None or call.excinfo is None:
        return
    if not isinstance(call.excinfo.value, testing.HistoryAssertionError):
        return
    report = outcome.get_result()
    path, line, _ = item.location
    report.longrepr = f"{path}:{(line or 0) + 1}: {call.excinfo.value}"
