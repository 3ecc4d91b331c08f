"""Heal the history LiteLLM sends, for the provider LiteLLM routes it to.

::

    from heal.integrations.litellm import completion      # instead of litellm's

    response = completion(model="anthropic/claude-sonnet-4-6", messages=history, tools=tools)

On the LiteLLM proxy, register :class:`HealCallback` as a callback (``config.yaml``)::

    # custom_callbacks.py
    from heal.integrations.litellm import HealCallback
    heal_callback = HealCallback()

    # config.yaml
    litellm_settings:
      callbacks: custom_callbacks.heal_callback

Which API: :func:`completion` and :func:`acompletion` take exactly what ``litellm.completion``
and ``litellm.acompletion`` take and return what they return, so healing is a change of import.
They are looked up on ``litellm`` at each call, so a ``litellm.completion`` patched later (a
test's mock) is the one called. :func:`heal_litellm` wraps any function called like them with
heal's options (``policy=``, ``on_repair=``, ``strict=``, ``provider=``):
``heal_litellm(litellm.acompletion, on_repair=audit)``. A ``Router`` is given model group names,
not models: register :class:`HealCallback` in ``litellm.callbacks`` instead, which heals each
async call for the deployment the router picked.

LiteLLM takes OpenAI Chat Completions messages whatever the provider and writes the provider's
format itself. So ``messages`` is read and written as Chat Completions (with
:mod:`heal.adapters.openai_chat`), and healed by the rules of the provider the request finally
goes to: ``anthropic/claude-sonnet-4-6`` gets Anthropic's rules (no prefill for that model, every
tool call answered), ``mistral/mistral-large-latest`` Mistral's (nine-character tool call ids, no
reasoning input outside Magistral). Only the request changes: the caller's list is not mutated,
and a history that needs nothing is sent as the very list passed in.

Provider (``provider="auto"``): the model string as LiteLLM routes it. When the string names a
LiteLLM provider (``anthropic/...``, ``bedrock/...``) or the call names one
(``custom_llm_provider=``), ``litellm.get_llm_provider`` settles the provider, with the call's
``api_base``; a bare Bedrock model id is spelled with the route the installed LiteLLM takes for
it (Converse, or InvokeModel, which sends Claude Anthropic's body), since that depends on
LiteLLM's model list. Then :func:`heal.providers.infer_provider` reads the string, as it does
any other model id (a bare ``claude-...`` or ``gpt-4o`` included), and an OpenAI-format model
with an ``api_base`` is that server's (:func:`heal.providers.openai_endpoint_provider`:
``openai/<model>`` on Groq's base URL is Groq). A route heal has no provider for gets the
shared rules.

Target (:class:`heal.Target`): the model (its facts, such as "``claude-sonnet-4-6`` rejects a
prefill", come from its own name: :func:`heal.targets.model_name`); whether the call thinks, from
``thinking`` (``{"type": "enabled", ...}`` on, ``{"type": "disabled"}`` off, as Anthropic's
parameter: :func:`heal.adapters.anthropic.thinking_enabled`) or else ``reasoning_effort``
(``"none"`` off, any other effort on: :func:`heal.integrations._common.effort_thinking`); and
the tools, from ``tools`` and the legacy ``functions``. A call without tools leaves them unknown
rather than "none": LiteLLM itself adds a placeholder tool for a history with tool calls where
the provider needs one (Anthropic; Bedrock with ``litellm.modify_params``), or refuses the call.

LiteLLM's own message fields, which heal's Chat Completions adapter does not read, are carried
across healing:

* ``thinking_blocks`` (signed Claude thinking, with ``reasoning_content`` repeating its text):
  LiteLLM sends the blocks to Anthropic and Bedrock and never ``reasoning_content``, so for those
  providers heal does not see that copy as unsigned reasoning to remove. The blocks pass through
  untouched; heal does not see them as signed thinking either (its rules about signed thinking
  do not run on them).
* a tool call's ``provider_specific_fields.thought_signature`` (Gemini): heal reads it as the
  call's thought signature, and a signature heal adds goes there, where LiteLLM reads it.

The proxy (:class:`HealCallback`): ``async_pre_call_hook`` runs before the router picks a
deployment, on ``data["model"]``, the model group a client asked for (an alias of it
included). Its deployments' ``litellm_params`` (model, ``custom_llm_provider``, ``api_base``,
from the proxy's router) give the target; a group whose deployments differ is healed by the
shared rules only. ``async_pre_call_deployment_hook`` then runs in each async LiteLLM call, on
the deployment the router picked (a fallback's included), and heals for it: what the group could
not settle is healed there. Only chat completion calls are healed (``completion`` /
``acompletion``); other routes (Responses, Anthropic's ``/v1/messages``, embeddings) pass
untouched. Outside the proxy, the same callback in ``litellm.callbacks`` heals every
``litellm.acompletion`` and ``Router.acompletion``; LiteLLM runs no such hook for synchronous
calls: use :func:`completion` there.

Repairs carry indices into the request's ``messages`` and go to ``on_repair``, or are logged at
INFO on the ``heal`` logger. A history heal cannot read is sent unchanged with a WARNING
(``strict=True`` raises instead, as it does for one that needed repair).
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

import litellm
from litellm.integrations.custom_logger import CustomLogger

from heal.adapters.anthropic import thinking_enabled
from heal.adapters.openai_chat import heal_openai_chat
from heal.integrations._common import (
    AUTO,
    HealOptions,
    ProviderChoice,
    effort_thinking,
    guarded,
    request_target,
)
from heal.policy import Policy
from heal.providers import (
    LITELLM_BEDROCK_OTHER_ROUTES,
    ProviderId,
    infer_provider,
    openai_endpoint_provider,
)
from heal.repairs import Repair
from heal.rules import Rule
from heal.targets import Target

__all__ = ["HealCallback", "acompletion", "completion", "heal_litellm", "litellm_route"]

F = TypeVar("F", bound=Callable[..., Any])

_CHAT_CALLS = frozenset({"completion", "acompletion"})
"""LiteLLM call types whose ``messages`` are Chat Completions messages."""

_THINKING_BLOCK_PROVIDERS: frozenset[ProviderId] = frozenset({"anthropic", "bedrock"})
"""Providers LiteLLM sends an assistant message's ``thinking_blocks`` to (as thinking blocks, or
Converse's reasoning content), leaving out its ``reasoning_content``."""

_MIRROR = "heal_litellm_reasoning_content"
"""Where ``reasoning_content`` waits while heal reads a message with ``thinking_blocks``: a key
the Chat Completions adapter keeps verbatim and no rule reads."""

_DEFAULT = HealOptions()


# --- the SDK: completion, acompletion, heal_litellm ---------------------------------------------


def completion(*args: Any, **kwargs: Any) -> Any:
    """``litellm.completion`` with ``messages`` healed first for the model it routes to (see
    the module docstring); repairs are logged on the ``heal`` logger."""
    args, kwargs = _heal_arguments(_DEFAULT, args, kwargs)
    return litellm.completion(*args, **kwargs)


async def acompletion(*args: Any, **kwargs: Any) -> Any:
    """``litellm.acompletion`` with ``messages`` healed first for the model it routes to (see
    the module docstring); repairs are logged on the ``heal`` logger."""
    args, kwargs = _heal_arguments(_DEFAULT, args, kwargs)
    return await litellm.acompletion(*args, **kwargs)


def heal_litellm(
    fn: F,
    *,
    provider: ProviderChoice = AUTO,
    policy: Policy | Mapping[str, str] | None = None,
    rules: Sequence[Rule] | None = None,
    on_repair: Callable[[Repair], object] | None = None,
    strict: bool = False,
) -> F:
    """``fn`` (``litellm.completion``, ``litellm.acompletion``, or anything called like them,
    sync or async) healing ``messages`` before each call.

    ``provider="auto"`` follows the call's model as LiteLLM routes it; the other options are
    those of :func:`heal.heal_messages`, with repairs going to ``on_repair`` or the ``heal``
    logger.
    """
    options = HealOptions(provider, policy, rules, on_repair, strict)
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def healing_async(*args: Any, **kwargs: Any) -> Any:
            args, kwargs = _heal_arguments(options, args, kwargs)
            return await fn(*args, **kwargs)

        return cast(F, healing_async)

    @functools.wraps(fn)
    def healing(*args: Any, **kwargs: Any) -> Any:
        args, kwargs = _heal_arguments(options, args, kwargs)
        return fn(*args, **kwargs)

    return cast(F, healing)


def _heal_arguments(
    options: HealOptions, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments of a ``completion(model, messages, ...)`` call, ``messages`` healed."""
    call = {**dict(zip(("model", "messages"), args, strict=False)), **kwargs}
    healed = _heal_call(options, call, (call,))
    if healed is None:
        return args, kwargs
    if len(args) >= 2:
        return (args[0], healed["messages"], *args[2:]), kwargs
    return args, {**kwargs, "messages": healed["messages"]}


# --- the proxy and litellm.callbacks: HealCallback ----------------------------------------------


class HealCallback(CustomLogger):
    """A LiteLLM callback that heals chat completion ``messages`` on the proxy
    (``async_pre_call_hook``) and in every async LiteLLM call, proxy or not
    (``async_pre_call_deployment_hook``); see the module docstring.

    ``router``: the ``litellm.Router`` whose model groups ``async_pre_call_hook`` resolves;
    by default the proxy's own (``litellm.proxy.proxy_server.llm_router``). The other options
    are those of :func:`heal.heal_messages`. The proxy runs ``async_pre_call_hook`` only for a
    class that defines it itself: a subclass must define it too (calling ``super()``).
    """

    def __init__(
        self,
        *,
        provider: ProviderChoice = AUTO,
        policy: Policy | Mapping[str, str] | None = None,
        rules: Sequence[Rule] | None = None,
        on_repair: Callable[[Repair], object] | None = None,
        strict: bool = False,
        router: Any = None,
    ) -> None:
        super().__init__()
        self.options = HealOptions(provider, policy, rules, on_repair, strict)
        self.router = router

    async def async_pre_call_hook(
        self,
        user_api_key_dict: Any,
        cache: Any,
        data: dict[str, Any],
        call_type: str,
    ) -> dict[str, Any]:
        """The proxy's hook before routing: ``data`` with its ``messages`` healed for the
        deployments of the model group it names (``data`` itself when nothing changed)."""
        if call_type not in _CHAT_CALLS:
            return data
        healed = _heal_call(self.options, data, self._deployments(data))
        return data if healed is None else healed

    async def async_pre_call_deployment_hook(
        self, kwargs: Mapping[str, Any], call_type: object
    ) -> dict[str, Any] | None:
        """LiteLLM's hook once a deployment is picked: the call's arguments with ``messages``
        healed for that deployment's model; None when nothing changed."""
        if getattr(call_type, "value", call_type) not in _CHAT_CALLS:
            return None
        return _heal_call(self.options, kwargs, (kwargs,))

    def _deployments(self, data: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
        """The ``litellm_params`` of each deployment of the model group ``data`` names, or
        ``data`` itself when the router has no such group (a LiteLLM model string, or a name a
        wildcard deployment matches)."""
        router = self.router if self.router is not None else _proxy_router()
        name = data.get("model")
        if router is None or not isinstance(name, str):
            return (data,)
        return _group(router, name) or (data,)


def _proxy_router() -> Any:
    """The proxy's router, when this process is the proxy (never imports the proxy)."""
    return getattr(sys.modules.get("litellm.proxy.proxy_server"), "llm_router", None)


def _group(router: Any, name: str) -> list[Mapping[str, Any]]:
    """The ``litellm_params`` of the deployments in ``router``'s model group ``name`` (an
    alias of a group included); empty when there is none."""
    try:
        registry = getattr(router, "registry", None)
        if callable(registry):  # newer LiteLLM, where get_model_list is deprecated
            found = registry().deployments(name)
        else:
            found = router.get_model_list(model_name=name)
    except Exception:  # a router heal cannot query: the name is read as a model string
        return []
    if isinstance(found, Mapping) or not isinstance(found, Iterable):
        found = [found]
    group: list[Mapping[str, Any]] = []
    for deployment in found:
        params = (
            deployment.get("litellm_params")
            if isinstance(deployment, Mapping)
            else getattr(deployment, "litellm_params", None)
        )
        if params is not None and not isinstance(params, Mapping):
            dump = getattr(params, "model_dump", None)
            params = dump() if callable(dump) else None
        if isinstance(params, Mapping) and isinstance(params.get("model"), str):
            group.append(params)
    return group


# --- the request's target -----------------------------------------------------------------------


def litellm_route(
    model: str, *, custom_llm_provider: str | None = None, api_base: str | None = None
) -> tuple[ProviderId | None, str]:
    """The provider a LiteLLM model string is healed for, and the model id as LiteLLM routes it
    (``bedrock/invoke/...`` for a Bedrock model LiteLLM sends to InvokeModel); see the module
    docstring. Never fails: what LiteLLM cannot route is read by
    :func:`heal.providers.infer_provider` alone."""
    head, slash, _ = model.partition("/")
    # LiteLLM prints a banner for a model it cannot route: ask only when a provider is named.
    if not custom_llm_provider and not (slash and head in litellm.provider_list):
        return infer_provider(model), model
    try:
        name, llm_provider, _, _ = litellm.get_llm_provider(
            model, custom_llm_provider=custom_llm_provider, api_base=api_base
        )
    except Exception:  # LiteLLM will refuse the call itself
        return infer_provider(model), model
    spelled = f"{llm_provider}/{name}"
    if llm_provider == "bedrock":
        route = _bedrock_route(name)
        if route is None:
            return None, spelled
        if route and not name.startswith(f"{route}/"):
            spelled = f"bedrock/{route}/{name}"
    provider = infer_provider(spelled)
    if api_base and provider in ("openai-chat", "openai-compatible"):
        # `openai/<model>` with another server's base URL speaks to that server.
        provider = openai_endpoint_provider(api_base, "chat")
    return provider, spelled


def _bedrock_route(name: str) -> str | None:
    """The route the installed LiteLLM sends a Bedrock model to, when heal knows that route
    (``converse``, ``invoke``, and those :data:`heal.providers.LITELLM_BEDROCK_OTHER_ROUTES`
    names); None for a route heal has no provider for (``chat_completions``, ...); ``""`` when
    this LiteLLM does not say (heal reads the model id as it is)."""
    try:
        from litellm.llms.bedrock.common_utils import BedrockModelInfo

        route = str(BedrockModelInfo.get_bedrock_route(name))
    except Exception:  # an older LiteLLM, or a model id it cannot route
        return ""
    if route in ("converse", "invoke") or route in LITELLM_BEDROCK_OTHER_ROUTES:
        return route
    return None


def _target(
    options: HealOptions, call: Mapping[str, Any], deployments: Sequence[Mapping[str, Any]]
) -> Target:
    """The target of a call that goes to one of ``deployments`` (each a mapping with
    ``model`` and optionally ``custom_llm_provider`` and ``api_base``): theirs when they agree,
    else the shared rules with what the call itself says."""
    thinking = _thinking(call)
    tools = _tools(call)
    targets = {_deployment_target(options, d, thinking, tools) for d in deployments}
    if len(targets) == 1:
        return targets.pop()
    return request_target(options.choose(lambda: None), thinking=thinking, tools=tools)


def _deployment_target(
    options: HealOptions,
    deployment: Mapping[str, Any],
    thinking: bool | None,
    tools: list[Any] | None,
) -> Target:
    model = deployment.get("model")
    if not isinstance(model, str) or not model.strip():
        return request_target(options.choose(lambda: None), thinking=thinking, tools=tools)
    provider, spelled = litellm_route(
        model,
        custom_llm_provider=_string(deployment.get("custom_llm_provider")),
        api_base=_string(deployment.get("api_base")),
    )
    return request_target(
        options.choose(lambda: provider), model=spelled, thinking=thinking, tools=tools
    )


def _thinking(call: Mapping[str, Any]) -> bool | None:
    """Whether the call thinks: its ``thinking`` parameter, else its ``reasoning_effort``
    (a level, or LiteLLM's ``{"effort": ...}``)."""
    thinking = thinking_enabled(call.get("thinking"))
    if thinking is not None:
        return thinking
    effort = call.get("reasoning_effort")
    if isinstance(effort, Mapping):
        effort = effort.get("effort")
    return effort_thinking(effort)


def _tools(call: Mapping[str, Any]) -> list[Any] | None:
    """The tools the call offers (``tools`` and ``functions``); None when it names none, or
    something heal cannot read."""
    tools: list[Any] = []
    named = False
    for key in ("tools", "functions"):
        value = call.get(key)
        if isinstance(value, (list, tuple)):
            tools += value
            named = True
        elif value is not None:
            return None
    return tools if named else None


def _string(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


# --- healing the messages -----------------------------------------------------------------------


def _heal_call(
    options: HealOptions, call: Mapping[str, Any], deployments: Sequence[Mapping[str, Any]]
) -> dict[str, Any] | None:
    """``call`` with ``messages`` healed for ``deployments``, as a new dict; None when nothing
    changed or it holds no list of messages."""
    messages = call.get("messages")
    if not isinstance(messages, (list, tuple)) or not messages:
        return None
    native = list(messages)

    def heal() -> dict[str, Any] | None:
        target = _target(options, call, deployments)
        shown = _for_heal(native, target.provider)
        result = heal_openai_chat(
            shown,
            target=target,
            policy=options.policy,
            rules=options.rules,
            on_repair=options.report,
            strict=options.strict,
        )
        if not result.changed:
            return None
        healed = [_for_litellm(m, target.provider) for m in result.messages]
        return {**call, "messages": healed}

    return guarded(options, "LiteLLM request's 'messages'", heal, None)


def _for_heal(messages: list[Any], provider: ProviderId | None) -> list[Any]:
    """``messages`` with LiteLLM's own fields where heal's Chat Completions adapter reads them
    (the list itself when there are none); :func:`_for_litellm` undoes it."""
    shown: list[Any] | None = None
    for i, message in enumerate(messages):
        moved = _message_for_heal(message, provider)
        if moved is not message:
            if shown is None:
                shown = list(messages)
            shown[i] = moved
    return messages if shown is None else shown


def _message_for_heal(message: Any, provider: ProviderId | None) -> Any:
    role = message.get("role") if isinstance(message, Mapping) else getattr(message, "role", None)
    if role != "assistant":
        return message
    native = _as_dict(message)
    if native is None:
        return message
    changed = False
    blocks = native.get("thinking_blocks")
    if (
        provider in _THINKING_BLOCK_PROVIDERS
        and isinstance(blocks, list)
        and blocks
        and native.get("reasoning_content") is not None
    ):
        native[_MIRROR] = native.pop("reasoning_content")
        changed = True
    calls = native.get("tool_calls")
    if provider == "google" and isinstance(calls, list):
        signed = [_call_for_heal(call) for call in calls]
        if any(s is not c for s, c in zip(signed, calls, strict=True)):
            native["tool_calls"] = signed
            changed = True
    return native if changed else message


def _call_for_heal(call: Any) -> Any:
    """A tool call with LiteLLM's thought signature copied to ``extra_content.google``."""
    if not isinstance(call, Mapping):
        return call
    signature = _litellm_signature(call)
    extra = call.get("extra_content")
    google = extra.get("google") if isinstance(extra, Mapping) else None
    if signature is None or (isinstance(google, Mapping) and google.get("thought_signature")):
        return call
    extra = dict(extra) if isinstance(extra, Mapping) else {}
    extra["google"] = {**(google or {}), "thought_signature": signature}
    return {**call, "extra_content": extra}


def _litellm_signature(call: Mapping[str, Any]) -> str | None:
    """The thought signature LiteLLM keeps on a tool call (or on its function)."""
    function = call.get("function")
    for holder in (call, function if isinstance(function, Mapping) else {}):
        fields = holder.get("provider_specific_fields")
        signature = fields.get("thought_signature") if isinstance(fields, Mapping) else None
        if isinstance(signature, str) and signature:
            return signature
    return None


def _for_litellm(message: Any, provider: ProviderId | None) -> Any:
    """A healed message with LiteLLM's own fields back where LiteLLM reads them."""
    if not isinstance(message, Mapping):
        return message
    out = dict(message)
    if _MIRROR in out:
        out["reasoning_content"] = out.pop(_MIRROR)
    calls = out.get("tool_calls")
    if provider == "google" and isinstance(calls, list):
        out["tool_calls"] = [_call_for_litellm(call) for call in calls]
    return out


def _call_for_litellm(call: Any) -> Any:
    """A tool call with the thought signature heal wrote (``extra_content.google``) moved to
    LiteLLM's ``provider_specific_fields``, unless LiteLLM's place already holds one."""
    if not isinstance(call, Mapping):
        return call
    extra = call.get("extra_content")
    if not isinstance(extra, Mapping) or not isinstance(extra.get("google"), Mapping):
        return call
    google: Mapping[str, Any] = extra["google"]
    signature = google.get("thought_signature")
    if not isinstance(signature, str) or not signature:
        return call
    out = {k: v for k, v in call.items() if k != "extra_content"}
    rest = {k: v for k, v in extra.items() if k != "google"}
    rest_google = {k: v for k, v in google.items() if k != "thought_signature"}
    if rest_google:
        rest["google"] = rest_google
    if rest:
        out["extra_content"] = rest
    if _litellm_signature(call) is None:
        fields = call.get("provider_specific_fields")
        out["provider_specific_fields"] = {
            **(fields if isinstance(fields, Mapping) else {}),
            "thought_signature": signature,
        }
    return out


def _as_dict(message: Any) -> dict[str, Any] | None:
    """A message as a dict the way the Chat Completions adapter reads it (a LiteLLM
    ``Message`` is a pydantic model); None for anything else."""
    if isinstance(message, Mapping):
        return dict(message)
    dump = getattr(message, "model_dump", None)
    if callable(dump):
        dumped = dump(mode="json", exclude_none=True)
        return dict(dumped) if isinstance(dumped, Mapping) else None
    return None
