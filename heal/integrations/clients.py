"""Heal the history in requests made with the raw ``openai`` and ``anthropic`` clients.

::

    from openai import OpenAI
    from heal.integrations.clients import heal_openai

    client = heal_openai(OpenAI())          # an OpenAI client, typed as one
    client.chat.completions.create(model="gpt-4o", messages=history)   # history healed first

:func:`heal_openai` heals ``messages`` of ``POST /chat/completions`` (with
:mod:`heal.adapters.openai_chat`) and a list ``input`` of ``POST /responses`` and
``/responses/input_tokens`` (with :mod:`heal.adapters.openai_responses`).
:func:`heal_anthropic` heals ``messages`` and ``system`` of ``POST /v1/messages`` and
``/v1/messages/count_tokens``, ``client.beta.messages`` included (with
:mod:`heal.adapters.anthropic`). Any other request goes out untouched. Sync and async clients
(and subclasses such as ``AzureOpenAI``) are supported.

How: each returns a COPY of the client (``client.with_options()``, sharing its connection pool)
whose class is a subclass of the client's own, overriding one method, ``post``: the generic
request method the SDKs document for endpoints they lack, and that every resource method calls
(``create``, ``parse``, ``stream``, ``with_raw_response``, ``with_streaming_response``). So the
healed client keeps its type, every method and its static types; later ``with_options()`` copies
heal too; and the body is healed once per call, before the SDK's retries, not per attempt. The
client passed in is not changed. Create the healed client once and keep it: each call makes a new
subclass.

The request keeps everything but the history it heals: the healed list replaces ``messages`` /
``input`` (and ``system``) in a new body dict; the caller's dict and list are never mutated, and a
history that needs nothing is sent as the very object passed in.

Provider (``provider="auto"``): Anthropic requests are ``anthropic``. OpenAI requests follow
the endpoint: ``openai-chat`` / ``openai-responses`` on ``api.openai.com`` and Azure OpenAI; on
another host, its provider when heal knows the host (DeepSeek, Groq, Mistral, ...:
:data:`heal.providers.OPENAI_FORMAT_HOSTS`), else ``openai-compatible`` for Chat Completions and
the shared rules for Responses. ``provider=`` forces one. A Responses request that continues a
stored conversation (``previous_response_id`` or ``conversation``) holds only the new items, so
tool outputs whose calls are not in it are kept (``orphan-tool-result`` = ``keep``, unless
``policy`` chooses otherwise).

Target (:class:`heal.Target`): the history is healed for the request it goes out in, from the
call's own arguments: ``model``; ``tools`` (their names; a request without ``tools`` offers
none, which Anthropic rejects when the history holds tool blocks); and whether it thinks, from
Anthropic's ``thinking`` (:func:`heal.adapters.anthropic.thinking_enabled`) or OpenAI's
``reasoning_effort`` / ``reasoning.effort`` (off for ``"none"``, on for any other effort:
:func:`heal.integrations._common.effort_thinking`; unknown without one, as the default effort
differs by model).

Repairs carry indices into the request's ``messages`` / ``input`` and go to ``on_repair``, or
are logged at INFO on the ``heal`` logger. A history heal cannot read is sent unchanged with a
WARNING (``strict=True`` raises instead, as it does for one that needed repair).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

from anthropic import Anthropic, AsyncAnthropic
from openai import AsyncOpenAI, OpenAI

from heal.adapters.anthropic import heal_anthropic as _heal_anthropic_history
from heal.adapters.anthropic import read_request
from heal.adapters.openai_chat import heal_openai_chat
from heal.adapters.openai_responses import heal_openai_responses
from heal.integrations._common import (
    AUTO,
    HealOptions,
    ProviderChoice,
    effort_thinking,
    guarded,
    request_target,
)
from heal.policy import Policy
from heal.providers import ProviderId, openai_endpoint_provider
from heal.repairs import Repair
from heal.rules import Rule
from heal.targets import Target

__all__ = ["heal_anthropic", "heal_openai"]

OpenAIClient = TypeVar("OpenAIClient", bound=OpenAI | AsyncOpenAI)
AnthropicClient = TypeVar("AnthropicClient", bound=Anthropic | AsyncAnthropic)
_C = TypeVar("_C")

_Body = dict[str, Any]
_Healer = Callable[[Any, str, _Body], _Body]
"""Heals the body of a POST to ``path`` made by a client; returns ``body`` itself when unchanged."""


def heal_openai(
    client: OpenAIClient,
    *,
    provider: ProviderChoice = AUTO,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
) -> OpenAIClient:
    """A copy of an ``OpenAI`` / ``AsyncOpenAI`` client that heals Chat Completions ``messages``
    and Responses ``input`` before sending them (see the module docstring).

    ``provider="auto"`` follows the endpoint; the other options are those of
    :func:`heal.heal_messages`, with repairs going to ``on_repair`` or the ``heal`` logger.
    """
    options = HealOptions(provider, policy, rules, on_repair, strict)
    partial = options.for_partial_history()

    def heal_body(client: Any, path: str, body: _Body) -> _Body:
        route = path.partition("?")[0].rstrip("/")
        if route.endswith("/chat/completions"):
            return _heal_field(
                options,
                body,
                "messages",
                lambda: openai_endpoint_provider(client.base_url, "chat"),
                heal_openai_chat,
            )
        if route.endswith(("/responses", "/responses/input_tokens")):
            if isinstance(body.get("input"), str):
                return body
            # The server holds the start of the conversation: results of calls made there
            # are not orphans.
            continued = body.get("previous_response_id") or body.get("conversation")
            return _heal_field(
                partial if continued else options,
                body,
                "input",
                lambda: openai_endpoint_provider(client.base_url, "responses"),
                heal_openai_responses,
            )
        return body

    return _healing_copy(client, heal_body)


def heal_anthropic(
    client: AnthropicClient,
    *,
    provider: ProviderChoice = AUTO,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
) -> AnthropicClient:
    """A copy of an ``Anthropic`` / ``AsyncAnthropic`` client that heals ``messages`` and
    ``system`` before sending them (see the module docstring).

    ``provider="auto"`` is ``anthropic``; the other options are those of
    :func:`heal.heal_messages`, with repairs going to ``on_repair`` or the ``heal`` logger.
    """
    options = HealOptions(provider, policy, rules, on_repair, strict)

    def heal_body(client: Any, path: str, body: _Body) -> _Body:
        route = path.partition("?")[0].rstrip("/")
        if not route.endswith(("/v1/messages", "/v1/messages/count_tokens")):
            return body
        messages = body.get("messages")
        if not isinstance(messages, (list, tuple)):
            return body
        history: _Body = {"messages": list(messages)}
        # The body may hold the SDK's "not given" sentinel; only a real system prompt is history.
        system = body.get("system")
        if isinstance(system, (str, list, tuple)):
            history["system"] = system if isinstance(system, str) else list(system)

        def heal() -> _Body:
            facts = read_request(body)
            target = request_target(
                options.choose(lambda: "anthropic"),
                model=facts.model,
                thinking=facts.thinking,
                tools=_offered(body.get("tools"), facts.tools),
                prefix_mismatch_behavior=facts.prefix_mismatch_behavior,
            )
            result = _heal_anthropic_history(
                history,
                target=target,
                policy=options.policy,
                rules=options.rules,
                on_repair=options.report,
                strict=options.strict,
            )
            if not result.changed:
                return body
            healed: Mapping[str, Any] = result.messages
            out = {**body, "messages": healed["messages"]}
            if "system" in healed:
                out["system"] = healed["system"]
            return out

        return guarded(options, "Anthropic messages request", heal, body)

    return _healing_copy(client, heal_body)


def _heal_field(
    options: HealOptions,
    body: _Body,
    key: str,
    infer: Callable[[], ProviderId | None],
    heal_native: Callable[..., Any],
) -> _Body:
    """Heal ``body[key]`` (a list of messages or items) with an adapter's ``heal_<format>``."""
    value = body.get(key)
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (list, tuple)):
        return body
    native = list(value)

    def heal() -> _Body:
        result = heal_native(
            native,
            target=_openai_target(options.choose(infer), body),
            policy=options.policy,
            rules=options.rules,
            on_repair=options.report,
            strict=options.strict,
        )
        return {**body, key: result.messages} if result.changed else body

    return guarded(options, f"request's {key!r}", heal, body)


def _offered(value: object, names: Sequence[str] | None) -> Sequence[str] | None:
    """The tools an Anthropic request body offers: ``names`` for a list; none when the body
    has no tools (the SDK's "omit" sentinel stands in for an argument not given: the body is
    the whole request); unknown for an iterable the SDK has yet to read, which heal must not
    consume."""
    if isinstance(value, (list, tuple)):
        return names
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping)):
        return None
    return ()


def _openai_target(provider: ProviderId | None, body: _Body) -> Target:
    """The target of a Chat Completions or Responses request body: its ``model``, its tools
    (``tools``, and the legacy ``functions`` of Chat Completions; a body without them offers
    none) and its reasoning effort (``reasoning_effort``, or Responses' ``reasoning.effort``)."""
    tools: list[Any] = []
    for key in ("tools", "functions"):
        value = body.get(key)
        if isinstance(value, (list, tuple)):
            tools += value
        elif value is not None:
            return request_target(provider, model=body.get("model"))
    reasoning = body.get("reasoning")
    effort = reasoning.get("effort") if isinstance(reasoning, Mapping) else None
    return request_target(
        provider,
        model=body.get("model"),
        thinking=effort_thinking(body.get("reasoning_effort", effort)),
        tools=tools,
    )


def _healing_copy(client: _C, heal_body: _Healer) -> _C:
    """A copy of ``client`` whose class overrides ``post`` to heal the body first."""
    base: type[Any] = type(client)
    base_post = base.post

    def heal_kwargs(self: Any, path: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        body = kwargs.get("body")
        if isinstance(body, dict):
            healed = heal_body(self, path, body)
            if healed is not body:
                kwargs = {**kwargs, "body": healed}
        return kwargs

    if inspect.iscoroutinefunction(base_post):

        async def apost(self: Any, path: str, /, **kwargs: Any) -> Any:
            return await base_post(self, path, **heal_kwargs(self, path, kwargs))

        post: Callable[..., Any] = apost
    else:

        def spost(self: Any, path: str, /, **kwargs: Any) -> Any:
            return base_post(self, path, **heal_kwargs(self, path, kwargs))

        post = spost

    post.__doc__ = f"{base.__name__}.post, healing the request's history first (heal)."
    healing = type(
        f"Healing{base.__name__}",
        (base,),
        {"post": post, "__module__": __name__, "__qualname__": f"Healing{base.__name__}"},
    )
    # The copy gets the subclass before any resource (`.chat`, `.messages`) is built on it, and
    # resources bind `client.post` when built, so every resource of the copy heals.
    copied: Any = cast(Any, client).with_options()
    copied.__class__ = healing
    return cast(_C, copied)
