"""Heal what an OpenAI Agents SDK run sends to its model, with ``call_model_input_filter``.

::

    from agents import Agent, RunConfig, Runner
    from heal.integrations.openai_agents import heal_input_filter

    config = RunConfig(call_model_input_filter=heal_input_filter())
    result = await Runner.run(agent, history, run_config=config)

The SDK calls the filter right before each model call with the input items (Responses format,
whatever the model) and the instructions; the filter returns them with the items healed by
:mod:`heal.adapters.openai_responses`. Only the request changes: the run's items, session and
``result.to_input_list()`` keep what happened. Items heal did not change are the very objects the
SDK passed in, so its bookkeeping of what was sent (matched by identity) keeps working.

Provider (``provider="auto"``): the filter sees the agent, not the ``RunConfig``, so it follows
``agent.model``, or the ``model=`` given to :func:`heal_input_filter` (a ``RunConfig.model`` that
overrides the agents' models). A model name without a prefix (or ``openai/...``, or no model)
goes to OpenAI's Responses API (Chat Completions after
``set_default_openai_api("chat_completions")``); an ``OpenAIResponsesModel`` /
``OpenAIChatCompletionsModel`` follows its client's endpoint (as
:func:`heal.integrations.clients.heal_openai` does); ``litellm/<model>`` and a ``LitellmModel``
follow the LiteLLM model string (:func:`heal.infer_provider`); anything else gets the shared
rules. ``provider=`` forces one.

Target (:class:`heal.Target`): each call is healed for the model that serves it, the same way:
the model name (a string, the ``model`` of an SDK ``Model``, or the SDK's default model when
neither the agent nor ``model=`` names one), and the agent's tools: its ``tools`` and the tools
its handoffs become (``transfer_to_<agent>``). An agent with MCP servers offers tools heal
cannot list without asking the servers, so its tools are left unknown. Whether the call thinks
is not read: the model settings that say it can be overridden by the ``RunConfig``, which the
filter does not see.

A run that continues a conversation the server keeps (``previous_response_id=``,
``conversation_id=``, ``auto_previous_response_id=True``) sends only the new items: the calls
their tool outputs answer are on the server. Pass ``server_managed=True`` so those outputs are
kept (``orphan-tool-result`` = ``keep``) instead of removed as orphans.
"""

from __future__ import annotations

import inspect
import json
from collections import defaultdict, deque
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

from agents import Agent, Handoff, Model
from agents.models import get_default_model
from agents.run_config import CallModelData, CallModelInputFilter, ModelInputData

from heal.adapters.openai_responses import heal_openai_responses
from heal.integrations._common import (
    AUTO,
    HealOptions,
    ProviderChoice,
    guarded,
    request_target,
)
from heal.policy import Policy
from heal.providers import ProviderId, infer_provider, openai_endpoint_provider
from heal.repairs import Repair
from heal.rules import Rule
from heal.targets import Target

__all__ = [
    "HealInputFilter",
    "agent_tool_names",
    "heal_input_filter",
    "model_name",
    "provider_for_model",
]

HealInputFilter = Callable[[CallModelData[Any]], Coroutine[Any, Any, ModelInputData]]
"""What :func:`heal_input_filter` returns: a ``RunConfig.call_model_input_filter``."""


def heal_input_filter(
    *,
    provider: ProviderChoice = AUTO,
    model: str | Model | None = None,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
    server_managed: bool = False,
    then: CallModelInputFilter | None = None,
) -> HealInputFilter:
    """A ``call_model_input_filter`` that heals the input items of every model call.

    Args:
        provider: ``"auto"`` (follow ``agent.model``, see the module docstring), a provider id,
            or None for the shared rules.
        model: the ``RunConfig.model`` the run uses instead of the agents' own models, for
            ``provider="auto"`` to follow.
        policy: per-rule choices, as for :func:`heal.heal_messages`.
        rules: extra rules, as for :func:`heal.heal_messages`.
        on_repair: called with each repair (indices into the input items); None logs each at
            INFO on the ``heal`` logger.
        strict: raise :class:`~heal.errors.HealingError` (which fails the run) instead of
            sending input that needed repair.
        server_managed: the run continues a server-side conversation; keep tool outputs whose
            calls are not in the input.
        then: another filter to run first (``RunConfig`` takes one), such as the SDK's
            ``ToolOutputTrimmer``; heal heals what it returns.
    """
    options = HealOptions(provider, policy, rules, on_repair, strict)
    if server_managed:
        options = options.for_partial_history()

    async def heal_input(data: CallModelData[Any]) -> ModelInputData:
        if then is not None:
            filtered = then(data)
            model_data = await filtered if inspect.isawaitable(filtered) else filtered
        else:
            model_data = data.model_data
        items = model_data.input

        def heal() -> list[Any]:
            result = heal_openai_responses(
                items,
                target=_target(options, data.agent, model),
                policy=options.policy,
                rules=options.rules,
                on_repair=options.report,
                strict=options.strict,
            )
            return _reuse_unchanged(items, result.messages) if result.changed else items

        healed = guarded(options, "model input items", heal, items)
        if healed is items:
            return model_data
        return ModelInputData(input=healed, instructions=model_data.instructions)

    return heal_input


def _target(options: HealOptions, agent: Agent[Any], override: str | Model | None) -> Target:
    served_by = agent.model if override is None else override
    return request_target(
        options.choose(lambda: provider_for_model(served_by)),
        model=model_name(served_by),
        tools=agent_tool_names(agent),
    )


def model_name(model: str | Model | None) -> str | None:
    """The model id an Agents SDK model calls: the name itself (``litellm/`` and other prefixes
    are read by :func:`heal.targets.model_name`), the ``model`` of an SDK ``Model``, or for None
    the SDK's default model (``get_default_model()``); None when a ``Model`` names none."""
    if model is None:
        return get_default_model()
    if isinstance(model, str):
        return model
    try:
        name = getattr(model, "model", None)
    except Exception:  # a property that raises is a fact heal cannot read
        return None
    return name if isinstance(name, str) else None


def agent_tool_names(agent: Agent[Any]) -> list[str] | None:
    """The names of the tools an agent offers its model: its tools and its handoffs' tools
    (``transfer_to_<agent>``, or the handoff's ``tool_name``). None when the agent has MCP
    servers, whose tools heal does not know without asking them."""
    if getattr(agent, "mcp_servers", None):
        return None
    names: list[str] = []
    for tool in getattr(agent, "tools", None) or ():
        name = getattr(tool, "name", None)
        if isinstance(name, str):
            names.append(name)
    for handoff in getattr(agent, "handoffs", None) or ():
        if isinstance(handoff, Handoff):
            names.append(handoff.tool_name)
        elif isinstance(handoff, Agent):
            names.append(Handoff.default_tool_name(handoff))
    return names


def provider_for_model(model: str | Model | None) -> ProviderId | None:
    """The provider an Agents SDK model (a name, a ``Model``, or None for the default) sends
    to; None when unknown (see the module docstring)."""
    if model is None or isinstance(model, str):
        prefix, slash, rest = (model or "").partition("/")
        if slash and prefix == "litellm":
            return infer_provider(rest)
        if slash and prefix != "openai":
            return None  # any-llm/..., or a prefix of the user's own MultiProvider map
        return "openai-responses" if _responses_by_default() else "openai-chat"
    names = {
        klass.__name__ for klass in type(model).__mro__ if klass.__module__.startswith("agents.")
    }
    client = getattr(model, "_client", None)
    base_url = getattr(client, "base_url", None)
    if "OpenAIResponsesModel" in names:
        return openai_endpoint_provider(base_url, "responses")
    if "OpenAIChatCompletionsModel" in names:
        return openai_endpoint_provider(base_url, "chat")
    if "LitellmModel" in names:
        name = getattr(model, "model", None)
        return infer_provider(name) if isinstance(name, str) else None
    return None


def _responses_by_default() -> bool:
    try:
        from agents.models import _openai_shared

        return bool(_openai_shared.get_use_responses_by_default())
    except (ImportError, AttributeError):  # the SDK moved it: its documented default
        return True


def _reuse_unchanged(original: list[Any], healed: list[Any]) -> list[Any]:
    """``healed`` with each item equal to an original dict item replaced by that very object.

    The adapter writes every item anew when anything changed; the SDK tracks what it sent by
    object identity (server-managed conversations), so untouched items must stay its own.
    """
    pool: defaultdict[str, deque[Any]] = defaultdict(deque)
    for item in original:
        if isinstance(item, dict):
            pool[_key(item)].append(item)
    out: list[Any] = []
    for item in healed:
        same = pool.get(_key(item)) if isinstance(item, dict) else None
        out.append(same.popleft() if same else item)
    return out


def _key(item: Mapping[str, Any]) -> str:
    return json.dumps(item, sort_keys=True, default=repr)
