"""``heal.telemetry``: spans, events and the ``heal.repairs`` counter, read back from the
OpenTelemetry SDK's in-memory exporters; nothing of the content by default; the logging summary;
and ``import heal`` free of OpenTelemetry."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader, NumberDataPoint
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from heal import HealingError, HealResult, fit, heal_messages, load_messages
from heal.providers import ProviderId
from heal.telemetry import (
    COUNTER_NAME,
    EVENT_NAME,
    SPAN_NAME,
    HealTelemetry,
    log_repairs,
)

SECRET = "the secret tool output"

BROKEN: list[dict[str, Any]] = [
    {"role": "user", "content": "hi"},
    {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "gone_call",
                "toolName": "lookup",
                "output": {"type": "text", "value": SECRET},
            }
        ],
    },
    {"role": "assistant", "content": "hello"},
]
"""One orphan result (removed: ``orphan-tool-result``), whose tool message is then empty
(removed: ``empty-message``)."""

CLEAN: list[dict[str, Any]] = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "hello"},
]


@dataclass
class Otel:
    spans: InMemorySpanExporter
    metrics: InMemoryMetricReader
    tracer_provider: TracerProvider
    meter_provider: MeterProvider

    def telemetry(self, **options: Any) -> HealTelemetry:
        return HealTelemetry(
            tracer_provider=self.tracer_provider, meter_provider=self.meter_provider, **options
        )

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def counts(self) -> dict[tuple[tuple[str, Any], ...], int]:
        """The ``heal.repairs`` counter's value for each attribute set."""
        data = self.metrics.get_metrics_data()
        found: dict[tuple[tuple[str, Any], ...], int] = {}
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name != COUNTER_NAME:
                        continue
                    for point in metric.data.data_points:
                        # A counter's points are numbers, and whole ones: it only ever adds 1.
                        assert isinstance(point, NumberDataPoint)
                        assert isinstance(point.value, int)
                        assert point.attributes is not None
                        found[tuple(sorted(point.attributes.items()))] = point.value
        return found


@pytest.fixture
def otel() -> Iterator[Otel]:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    yield Otel(spans, reader, tracer_provider, meter_provider)
    tracer_provider.shutdown()
    meter_provider.shutdown()


def _key(**attributes: str) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted(attributes.items()))


def _all_text(span: ReadableSpan) -> str:
    """Every attribute and event of a span, as one text to search."""
    events = [(e.name, dict(e.attributes or {})) for e in span.events]
    return json.dumps([dict(span.attributes or {}), events], default=str)


# --- traced: a span per heal -----------------------------------------------------------------


def test_traced_heal_is_one_span_with_counts_by_rule_and_scope(otel: Otel) -> None:
    telemetry = otel.telemetry()
    result = telemetry.traced(heal_messages)(BROKEN, provider="anthropic")
    assert [r.rule for r in result.repairs] == ["orphan-tool-result", "empty-message"]

    [span] = otel.finished()
    assert span.name == SPAN_NAME
    assert dict(span.attributes or {}) == {
        "heal.provider": "anthropic",
        "heal.repairs": 2,
        "heal.changed": True,
        "heal.repairs.rule.empty-message": 1,
        "heal.repairs.rule.orphan-tool-result": 1,
        "heal.repairs.scope.history": 2,
    }
    assert span.status.status_code is StatusCode.UNSET
    assert [(e.name, dict(e.attributes or {})) for e in span.events] == [
        (
            EVENT_NAME,
            {
                "heal.rule": "orphan-tool-result",
                "heal.action": "remove",
                "heal.scope": "history",
                "heal.message_index": 1,
                "heal.part_index": 0,
            },
        ),
        (
            EVENT_NAME,
            {
                "heal.rule": "empty-message",
                "heal.action": "remove",
                "heal.scope": "history",
                "heal.message_index": 1,
            },
        ),
    ]
    assert otel.counts() == {
        _key(rule="orphan-tool-result", action="remove", scope="history", provider="anthropic"): 1,
        _key(rule="empty-message", action="remove", scope="history", provider="anthropic"): 1,
    }


def test_nothing_of_the_content_is_recorded_by_default(otel: Otel) -> None:
    otel.telemetry().traced(heal_messages)(BROKEN, provider="anthropic")
    [span] = otel.finished()
    text = _all_text(span)
    for content in (SECRET, "gone_call", "lookup", "hello"):
        assert content not in text


def test_content_is_recorded_when_asked(otel: Otel) -> None:
    otel.telemetry(record_content=True).traced(heal_messages)(BROKEN, provider="anthropic")
    [span] = otel.finished()
    orphan = dict(span.events[0].attributes or {})
    assert orphan["heal.tool_call_id"] == "gone_call"
    assert "not in the history" in str(orphan["heal.reason"])
    assert json.loads(str(orphan["heal.removed"]))["output"]["value"] == SECRET


def test_the_span_is_current_during_the_heal_and_counts_accumulate(otel: Otel) -> None:
    telemetry = otel.telemetry()
    seen: list[str] = []

    def heal(messages: Any, *, provider: ProviderId | None = None) -> HealResult:
        from opentelemetry import trace

        seen.append(trace.get_current_span().name)  # type: ignore[attr-defined]
        return heal_messages(messages, provider=provider)

    traced = telemetry.traced(heal)
    traced(BROKEN, provider="openai-chat")
    traced(BROKEN, provider="openai-chat")
    traced(CLEAN)
    assert seen == [SPAN_NAME] * 3
    spans = otel.finished()
    assert [s.attributes["heal.repairs"] for s in spans] == [2, 2, 0]  # type: ignore[index]
    assert spans[2].attributes["heal.provider"] == "none"  # type: ignore[index]
    assert spans[2].events == ()
    key = _key(rule="orphan-tool-result", action="remove", scope="history", provider="openai-chat")
    assert otel.counts()[key] == 2


def test_the_model_is_recorded_and_passed_on_only_to_a_function_that_takes_it(otel: Otel) -> None:
    telemetry = otel.telemetry()
    calls: list[dict[str, Any]] = []

    def without_model(messages: Any, *, provider: ProviderId | None = None) -> HealResult:
        calls.append({"provider": provider})
        return heal_messages(messages, provider=provider)

    def with_model(messages: Any, **options: Any) -> HealResult:
        calls.append(options)
        return heal_messages(messages, provider=options["provider"])

    telemetry.traced(without_model)(CLEAN, provider="anthropic", model="claude-sonnet-4-5")
    telemetry.traced(with_model)(CLEAN, provider="anthropic", model="claude-sonnet-4-5")
    assert calls == [
        {"provider": "anthropic"},
        {"provider": "anthropic", "model": "claude-sonnet-4-5"},
    ]
    assert [s.attributes["heal.model"] for s in otel.finished()] == ["claude-sonnet-4-5"] * 2  # type: ignore[index]


def test_a_strict_heal_that_raises_is_recorded_as_an_error_without_its_message(otel: Otel) -> None:
    telemetry = otel.telemetry()
    with pytest.raises(HealingError):
        telemetry.traced(heal_messages)(BROKEN, provider="anthropic", strict=True)
    [span] = otel.finished()
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes["error.type"] == "HealingError"  # type: ignore[index]
    assert span.attributes["heal.repairs"] == 2  # type: ignore[index]
    assert {e.name for e in span.events} == {EVENT_NAME}  # no exception event: its text quotes
    assert SECRET not in _all_text(span) and "gone_call" not in _all_text(span)
    assert sum(otel.counts().values()) == 2


# --- record: a heal already done -------------------------------------------------------------


def test_record_a_result_with_its_target(otel: Otel) -> None:
    telemetry = otel.telemetry(provider="bedrock")
    result = heal_messages(BROKEN, provider="google")
    telemetry.record(result, provider="google", model="gemini-2.5-pro", start_time=1_000)
    telemetry.record(fit(BROKEN, 1_000))  # any result with repairs; the default provider
    first, second = otel.finished()
    assert (first.name, first.start_time) == (SPAN_NAME, 1_000)
    assert first.attributes["heal.provider"] == "google"  # type: ignore[index]
    assert first.attributes["heal.model"] == "gemini-2.5-pro"  # type: ignore[index]
    assert second.attributes["heal.provider"] == "bedrock"  # type: ignore[index]
    assert "heal.model" not in (second.attributes or {})
    counts = otel.counts()
    assert (
        counts[_key(rule="empty-message", action="remove", scope="history", provider="google")] == 1
    )
    assert (
        counts[_key(rule="empty-message", action="remove", scope="history", provider="bedrock")]
        == 1
    )


def test_record_reads_the_target_a_result_carries() -> None:
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))

    @dataclass
    class Target:
        provider: str
        model: str

    @dataclass
    class Result:
        repairs: tuple[Any, ...]
        target: Target

    HealTelemetry(tracer_provider=provider).record(
        Result((), Target("mistral", "magistral-medium"))
    )
    [span] = spans.get_finished_spans()
    assert span.attributes["heal.provider"] == "mistral"  # type: ignore[index]
    assert span.attributes["heal.model"] == "magistral-medium"  # type: ignore[index]


# --- on_repair: the integrations' one argument -----------------------------------------------


def test_as_on_repair_it_counts_and_adds_events_to_the_current_span(otel: Otel) -> None:
    telemetry = otel.telemetry(provider="anthropic")
    tracer = otel.tracer_provider.get_tracer("app")
    with tracer.start_as_current_span("agent run"):
        heal_messages(BROKEN, provider="anthropic", on_repair=telemetry)
    [span] = otel.finished()
    assert span.name == "agent run"
    assert [e.attributes["heal.rule"] for e in span.events] == [  # type: ignore[index]
        "orphan-tool-result",
        "empty-message",
    ]
    assert SECRET not in _all_text(span)
    # Without a span (or a provider), the repairs are still counted.
    heal_messages(BROKEN, on_repair=otel.telemetry())
    counts = otel.counts()
    assert (
        counts[
            _key(rule="orphan-tool-result", action="remove", scope="history", provider="anthropic")
        ]
        == 1
    )
    assert (
        counts[
            _key(rule="orphan-tool-result", action="remove", scope="history", provider="unknown")
        ]
        == 1
    )


def test_an_integration_takes_it_as_its_on_repair(otel: Otel) -> None:
    from heal.integrations.clients import heal_openai
    from tests.integrations.test_clients import Wire, openai_client

    wire = Wire()
    client = heal_openai(openai_client(wire), on_repair=otel.telemetry(provider="openai-chat"))
    client.chat.completions.create(
        model="gpt-4o",
        messages=[
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "gone", "content": SECRET},
            {"role": "assistant", "content": "hello"},
        ],
    )
    assert [m["role"] for m in wire.body["messages"]] == ["user", "assistant"]
    key = _key(rule="orphan-tool-result", action="remove", scope="history", provider="openai-chat")
    assert otel.counts()[key] == 1


# --- logging ---------------------------------------------------------------------------------


def test_log_repairs_logs_one_line_per_heal_and_the_reasons_at_debug(
    caplog: pytest.LogCaptureFixture,
) -> None:
    result = heal_messages(BROKEN, provider="anthropic")
    with caplog.at_level(logging.INFO, logger="heal"):
        log_repairs(result, provider="anthropic", model="claude-sonnet-4-5")
        log_repairs(heal_messages(CLEAN))  # nothing to say
    [record] = caplog.records
    assert record.levelno == logging.INFO
    assert record.getMessage() == (
        "heal: 2 repair record(s) for anthropic, model claude-sonnet-4-5: "
        "empty-message 1, orphan-tool-result 1"
    )
    assert record.heal_repairs == result.repairs  # type: ignore[attr-defined]
    assert SECRET not in record.getMessage() and "gone_call" not in record.getMessage()

    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="heal"):
        log_repairs(result.repairs)
    assert [r.levelno for r in caplog.records] == [logging.INFO, logging.DEBUG, logging.DEBUG]
    assert "gone_call" in caplog.records[1].getMessage()


def test_log_repairs_refuses_what_holds_no_repairs() -> None:
    with pytest.raises(TypeError, match="repair records"):
        log_repairs(load_messages(CLEAN))


# --- import heal stays free of OpenTelemetry -------------------------------------------------


def test_import_heal_and_healing_import_no_opentelemetry() -> None:
    code = (
        "import sys, heal, heal.telemetry; heal.heal_messages([]); heal.fit([], 0); "
        "heal.telemetry.log_repairs(()); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'opentelemetry'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
