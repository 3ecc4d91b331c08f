"""Opt-in telemetry: OpenTelemetry spans and a repair counter, and a logging summary per heal.

A repair that fires on every turn usually means a bug upstream (a framework that drops a call's
result, a store that loses a field), which the repair itself hides: the request succeeds. Counted
by rule and provider, it shows. :class:`HealTelemetry` records, with the ``opentelemetry-api``
package (``pip install 'heal-messages[telemetry]'``, imported when one is made: ``import heal``
never imports it):

* a span ``heal`` per heal, with the target (provider, and model when known), the number of
  records by rule and by scope, and one ``heal.repair`` event per record;
* a counter ``heal.repairs``, one per record, with the attributes ``rule``, ``action``,
  ``scope`` and ``provider``.

Nothing of the messages is recorded unless ``record_content=True``: by default an event holds
the rule, the action, the scope and the indices; with it, the reason, the tool call id and the
removed and added content too (as JSON text). A reason can quote a tool name or a text.

Three ways in, for three places a heal happens:

* :meth:`HealTelemetry.traced` wraps a heal function (``heal_messages`` or an adapter's
  ``heal_<format>``): the span covers the call and is current during it;
* :meth:`HealTelemetry.record` records a heal already done, from its result (a span of no
  duration, unless given its start time);
* the object itself is an ``on_repair`` callback, for the integrations
  (``HealHistory(on_repair=HealTelemetry(provider="anthropic"))``): each repair is counted and
  added as an event to the current span (the framework's own), as a callback sees no heal begin
  or end. The provider is the one it was made with, else ``unknown``.

:func:`log_repairs` is the plain ``logging`` counterpart: one INFO line per heal on the ``heal``
logger, with the count by rule (and the reasons at DEBUG). ``docs/telemetry.md`` says what the
``heal`` logger logs and at which level.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from heal.errors import HealingError
from heal.repairs import Repair

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import Span, TracerProvider
    from opentelemetry.util.types import AttributeValue

__all__ = [
    "COUNTER_NAME",
    "EVENT_NAME",
    "SPAN_NAME",
    "HealTelemetry",
    "log_repairs",
]

SPAN_NAME = "heal"
"""The name of the span of one heal."""
EVENT_NAME = "heal.repair"
"""The name of the span event of one repair record."""
COUNTER_NAME = "heal.repairs"
"""The counter of repair records (attributes ``rule``, ``action``, ``scope``, ``provider``)."""

NO_PROVIDER = "none"
"""The ``provider`` of a heal for no provider (the shared rules alone)."""
UNKNOWN_PROVIDER = "unknown"
"""The ``provider`` of a repair an ``on_repair`` callback gets, when it was not told one."""

_R = TypeVar("_R")
_log = logging.getLogger("heal")


class HealTelemetry:
    """Records heals as OpenTelemetry spans and counts repairs (see the module docstring).

    Args:
        provider: the provider repairs passed to it as ``on_repair`` are for; the default for
            :meth:`record` and :meth:`traced` when they are not told.
        model: the model, likewise.
        record_content: also record the reason, tool call id and removed and added content of
            each repair (message content: off by default).
        tracer_provider: where spans go; the global one by default.
        meter_provider: where the counter goes; the global one by default.
    """

    def __init__(
        self,
        *,
        provider: str | None = None,
        model: str | None = None,
        record_content: bool = False,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
    ) -> None:
        try:
            from opentelemetry import metrics, trace
        except ImportError as exc:  # pragma: no cover - the extra is installed in development
            raise ImportError(
                "heal.telemetry.HealTelemetry needs opentelemetry-api: "
                "pip install 'heal-messages[telemetry]'"
            ) from exc
        from heal import __version__

        self.provider = provider
        self.model = model
        self.record_content = record_content
        self._trace = trace
        self._tracer = trace.get_tracer("heal", __version__, tracer_provider=tracer_provider)
        meter = metrics.get_meter("heal", __version__, meter_provider=meter_provider)
        self._counter = meter.create_counter(
            COUNTER_NAME,
            unit="{repair}",
            description="Repair records made by heal, by rule, action, scope and provider",
        )

    # --- the three ways in ----------------------------------------------------------------

    def __call__(self, repair: Repair) -> None:
        """Count ``repair`` and add it as an event to the current span: this object is an
        ``on_repair`` callback."""
        self._count(repair, self.provider or UNKNOWN_PROVIDER)
        span = self._trace.get_current_span()
        if span.is_recording():
            span.add_event(EVENT_NAME, self._event(repair))

    def record(
        self,
        result: Any,
        *,
        provider: str | None = None,
        model: str | None = None,
        start_time: int | None = None,
    ) -> None:
        """Record a heal already done: a ``heal`` span (from ``start_time``, in nanoseconds
        since the epoch, when given; else of no duration) and the counter.

        ``result`` is anything with ``repairs`` (a ``HealResult``, an adapter's result, a
        :class:`~heal.errors.HealingError`). The provider and model are the ones given, else
        the result's own when it carries them, else this object's.
        """
        provider, model = self._target(result, provider, model)
        span = self._tracer.start_span(SPAN_NAME, start_time=start_time)
        try:
            self._finish(span, _repairs_of(result), provider, model)
        finally:
            span.end()

    def traced(self, heal: Callable[..., _R]) -> Callable[..., _R]:
        """``heal`` (a function taking ``provider=``, such as ``heal_messages``), recorded: each
        call runs in a ``heal`` span, current during the call, and its repairs are counted.

        The wrapped function also takes ``model=``, passed on when ``heal`` takes it. A call
        that raises :class:`~heal.errors.HealingError` (``strict=True``) has its repairs
        recorded and the span's status set to error; any other exception sets the status and
        ``error.type`` (the exception itself, whose message may quote content, only with
        ``record_content``).
        """
        takes_model = _takes(heal, "model")

        @functools.wraps(heal)
        def run(
            *args: Any, provider: str | None = None, model: str | None = None, **kwargs: Any
        ) -> _R:
            if model is not None and takes_model:
                kwargs["model"] = model
            with self._tracer.start_as_current_span(
                SPAN_NAME, record_exception=False, set_status_on_exception=False
            ) as span:
                try:
                    result = heal(*args, provider=provider, **kwargs)
                except HealingError as exc:
                    named, model_of = self._target(exc, provider, model)
                    self._finish(span, exc.repairs, named, model_of)
                    self._failed(span, exc)
                    raise
                except Exception as exc:
                    named, model_of = self._target(None, provider, model)
                    span.set_attributes(self._summary((), named, model_of))
                    self._failed(span, exc)
                    raise
                named, model_of = self._target(result, provider, model)
                self._finish(span, _repairs_of(result), named, model_of)
                return result

        return run

    # --- what is recorded -----------------------------------------------------------------

    def _target(
        self, result: Any, provider: str | None, model: str | None
    ) -> tuple[str | None, str | None]:
        # A result may say what it was healed for (a target, once heal_messages takes a model):
        # read it if it is there, and never require it.
        target = getattr(result, "target", None)
        if provider is None:
            provider = _text(getattr(target, "provider", None)) or self.provider
        if model is None:
            model = _text(getattr(target, "model", None)) or self.model
        return provider, model

    def _finish(
        self, span: Span, repairs: tuple[Repair, ...], provider: str | None, model: str | None
    ) -> None:
        span.set_attributes(self._summary(repairs, provider, model))
        for repair in repairs:
            span.add_event(EVENT_NAME, self._event(repair))
            self._count(repair, provider or NO_PROVIDER)

    def _summary(
        self, repairs: tuple[Repair, ...], provider: str | None, model: str | None
    ) -> dict[str, AttributeValue]:
        found: dict[str, AttributeValue] = {"heal.provider": provider or NO_PROVIDER}
        if model is not None:
            found["heal.model"] = model
        found["heal.repairs"] = len(repairs)
        found["heal.changed"] = any(r.changed for r in repairs)
        for rule, n in sorted(Counter(r.rule for r in repairs).items()):
            found[f"heal.repairs.rule.{rule}"] = n
        for scope, n in sorted(Counter(r.scope.value for r in repairs).items()):
            found[f"heal.repairs.scope.{scope}"] = n
        return found

    def _event(self, repair: Repair) -> dict[str, AttributeValue]:
        found: dict[str, AttributeValue] = {
            "heal.rule": repair.rule,
            "heal.action": repair.action.value,
            "heal.scope": repair.scope.value,
        }
        places = {
            "heal.message_index": repair.message_index,
            "heal.part_index": repair.part_index,
            "heal.anchor_index": repair.anchor_index,
        }
        found.update({key: value for key, value in places.items() if value is not None})
        if self.record_content:
            found["heal.reason"] = repair.reason
            if repair.tool_call_id is not None:
                found["heal.tool_call_id"] = repair.tool_call_id
            if repair.removed is not None:
                found["heal.removed"] = json.dumps(repair.removed, ensure_ascii=False)
            if repair.added is not None:
                found["heal.added"] = json.dumps(repair.added, ensure_ascii=False)
        return found

    def _count(self, repair: Repair, provider: str) -> None:
        self._counter.add(
            1,
            {
                "rule": repair.rule,
                "action": repair.action.value,
                "scope": repair.scope.value,
                "provider": provider,
            },
        )

    def _failed(self, span: Span, exc: Exception) -> None:
        from opentelemetry.trace import Status, StatusCode

        span.set_attribute("error.type", type(exc).__qualname__)
        span.set_status(Status(StatusCode.ERROR, type(exc).__qualname__))
        if self.record_content:
            span.record_exception(exc)


# --- logging ---------------------------------------------------------------------------------


def log_repairs(
    result: Any,
    *,
    provider: str | None = None,
    model: str | None = None,
    logger: logging.Logger | None = None,
    level: int = logging.INFO,
) -> None:
    """Log a heal in one line on the ``heal`` logger (or ``logger``), at INFO (or ``level``):
    the number of records and their count by rule, and the target, without content; then each
    record's description (its reason, which may quote content) at DEBUG. Nothing when the heal
    made no record. The line's ``extra`` carries ``heal_repairs`` (the records),
    ``heal_provider`` and ``heal_model``, for handlers that want them whole.

    ``result`` is anything with ``repairs`` (a ``HealResult``, an adapter's result, a
    :class:`~heal.errors.HealingError`, a :class:`~heal.FitResult`), or the records themselves.
    """
    repairs = _repairs_of(result)
    if not repairs:
        return
    out = logger or _log
    if out.isEnabledFor(level):
        counts = sorted(Counter(r.rule for r in repairs).items())
        by_rule = ", ".join(f"{rule} {n}" for rule, n in counts)
        target = provider or NO_PROVIDER
        if model is not None:
            target += f", model {model}"
        out.log(
            level,
            "heal: %d repair record(s) for %s: %s",
            len(repairs),
            target,
            by_rule,
            extra={"heal_repairs": repairs, "heal_provider": provider, "heal_model": model},
        )
    if out.isEnabledFor(logging.DEBUG):
        for repair in repairs:
            out.debug("heal: %s", repair.describe(), extra={"heal_repair": repair})


# --- helpers ---------------------------------------------------------------------------------


def _repairs_of(result: Any) -> tuple[Repair, ...]:
    if isinstance(result, Iterable) and not isinstance(result, (str, bytes, Mapping)):
        found = tuple(result)
    else:
        found = tuple(getattr(result, "repairs", ()))
    if not all(isinstance(r, Repair) for r in found):
        raise TypeError(f"expected repair records or a result with repairs, got {result!r}")
    return found


def _takes(function: Callable[..., Any], name: str) -> bool:
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # a builtin without a signature: pass only what it takes
        return False
    return name in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
