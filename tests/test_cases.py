"""Every rule case file under tests/cases/ (shared rules and provider packs alike), each case run
once against the contract of :func:`tests.case_runner.check_case`."""

from __future__ import annotations

from typing import Any

import pytest

from tests.case_runner import all_cases, check_case

CASES = all_cases()


def test_case_files_exist() -> None:
    assert len(CASES) >= 50


@pytest.mark.parametrize(("rule", "case"), CASES)
def test_case(rule: str, case: dict[str, Any]) -> None:
    check_case(rule, case)
