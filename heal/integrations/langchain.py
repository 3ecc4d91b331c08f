"""Heal the messages a LangChain v1 agent (``langchain.agents.create_agent``) sends its model.

::

    from langchain.agents import create_agent
    from heal.integrations.langchain import HealMiddleware

    agent = create_agent("anthropic:claude-sonnet-4-5", tools=tools, middleware=[HealMiddleware()])
    agent.invoke({"messages": history})   # the model gets a healed history

Which hook: ``wrap_model_call`` (and ``awrap_model_call``), not ``before_model``.
``before_model`` returns a state update, and the ``add_messages`` reducer would merge heal's
changes into the graph state: healed copies replace messages by id, but a message heal removed
stays unless the middleware emits ``RemoveMessage`` for it, and every change is checkpointed as
if it had happened. ``wrap_model_call`` hands the model ``request.override(messages=healed)``
for this one call, so the state (and a checkpointer's thread) keeps the conversation as it
happened, and each call is healed for the model that serves it: put ``HealMiddleware`` LAST in
``middleware=[...]`` (the innermost layer), so it sees the model a ``ModelFallbackMiddleware``
or a dynamic-model middleware picked, and the messages other middleware rewrote.

``request.messages`` is healed with :mod:`heal.adapters.langchain`; ``request.system_message``
(the agent's ``system_prompt``) is sent first by every chat model, as the ``system`` parameter
of Anthropic or Gemini or the first message of OpenAI, and passes through untouched. System
messages inside ``messages`` are healed like the rest, and message chunks (``AIMessageChunk``)
are read as the messages they make. Repairs carry indices into
``request.messages`` and go to ``on_repair``, or are logged at INFO on the ``heal`` logger.

Target (:class:`heal.Target`): each call is healed for what it sends, whatever the provider: the
chat model's name (its ``model_name``, ``model`` or ``model_id``), the tools of the request
(``request.tools``, the tools ``create_agent`` binds for the call), and whether it thinks, from
the call's ``model_settings`` or else the chat model's own fields (:func:`request_thinking`).

Provider (``provider="auto"``): from the chat model's class (along its MRO, so subclasses
count), by :data:`heal.providers.LANGCHAIN_CHAT_MODELS`: ``ChatAnthropic`` → ``anthropic``,
``ChatGoogleGenerativeAI`` / ``ChatVertexAI`` → ``google``, ``ChatBedrockConverse`` →
``bedrock``, ``ChatMistralAI``, ``ChatGroq``, ... → theirs, ``ChatFireworks``, ``ChatTogether``,
... → ``openai-compatible``. ``ChatOpenAI`` / ``AzureChatOpenAI`` are ``openai-responses`` when
``use_responses_api=True``, else ``openai-chat``, on OpenAI's and Azure's endpoints; another
``base_url`` is that server's provider (:func:`heal.providers.openai_endpoint_provider`). Any
other model gets the shared rules; ``provider=`` forces one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, cast

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AnyMessage, BaseMessageChunk, message_chunk_to_message

from heal.adapters.anthropic import thinking_enabled as anthropic_thinking
from heal.adapters.langchain import heal_langchain
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
    LANGCHAIN_CHAT_MODELS,
    LANGCHAIN_OPENAI_CHAT_MODELS,
    ProviderId,
    openai_endpoint_provider,
)
from heal.repairs import Repair
from heal.rules import Rule
from heal.targets import Target

__all__ = ["HealMiddleware", "model_name", "provider_for_model", "request_thinking"]


class HealMiddleware(AgentMiddleware[Any, Any, Any]):
    """A LangChain agent middleware that heals the messages of every model call.

    ``create_agent(model, middleware=[..., HealMiddleware(on_repair=...)])``; the graph state is
    not changed (see the module docstring).

    Args:
        provider: ``"auto"`` (follow the request's chat model), a provider id, or None for the
            shared rules.
        policy: per-rule choices, as for :func:`heal.heal_messages`.
        rules: extra rules, as for :func:`heal.heal_messages`.
        on_repair: called with each repair (indices into ``request.messages``); None logs each
            at INFO on the ``heal`` logger.
        strict: raise :class:`~heal.errors.HealingError` instead of calling the model with
            messages that needed repair.
    """

    def __init__(
        self,
        *,
        provider: ProviderChoice = AUTO,
        policy: Policy | Mapping[str, str] | None = None,
        rules: Sequence[Rule] | None = None,
        on_repair: Callable[[Repair], object] | None = None,
        strict: bool = False,
    ) -> None:
        super().__init__()
        self.options = HealOptions(provider, policy, rules, on_repair, strict)
        """The options, checked when the middleware was built."""

    def heal_request(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The request with its messages healed; ``request`` itself when nothing changed."""
        messages = request.messages
        # Chunks (a streamed reply some graphs store as is) are read as the message they make;
        # they are sent as they were unless heal changes the history.
        readable = [
            message_chunk_to_message(m) if isinstance(m, BaseMessageChunk) else m for m in messages
        ]

        def heal() -> list[AnyMessage]:
            result = heal_langchain(
                readable,
                target=self.target(request),
                policy=self.options.policy,
                rules=self.options.rules,
                on_repair=self.options.report,
                strict=self.options.strict,
            )
            return cast("list[AnyMessage]", result.messages) if result.changed else messages

        healed = guarded(self.options, "LangChain model request", heal, messages)
        return request if healed is messages else request.override(messages=healed)

    def target(self, request: ModelRequest[Any]) -> Target:
        """What the call is: its provider (``provider=``, or the chat model's), the chat model's
        name, whether it thinks, and the tools it binds (see the module docstring)."""
        chat_model = request.model
        return request_target(
            self.options.choose(lambda: provider_for_model(chat_model)),
            model=model_name(chat_model),
            thinking=request_thinking(chat_model, request.model_settings),
            tools=request.tools,
        )

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """Call the model with the request's messages healed."""
        return handler(self.heal_request(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """Call the model with the request's messages healed (async agents)."""
        return await handler(self.heal_request(request))


def model_name(model: object) -> str | None:
    """The model id a LangChain chat model calls: its ``model_name`` (``ChatOpenAI``, ...),
    ``model`` (``ChatAnthropic``, ``ChatGoogleGenerativeAI``, ...) or ``model_id``
    (``ChatBedrockConverse``), whichever is a string first; None when none is."""
    for name in ("model_name", "model", "model_id"):
        value = _attribute(model, name)
        if isinstance(value, str) and value.strip():
            return value
    return None


def request_thinking(model: object, settings: Mapping[str, Any] | None = None) -> bool | None:
    """Whether a call to a LangChain chat model thinks, from the call's ``model_settings`` (the
    keywords bound for it) or else the chat model's own fields; None when neither says.

    Read, first that says wins: ``thinking`` (Anthropic's ``{"type": ...}``, as
    :func:`heal.adapters.anthropic.thinking_enabled` reads it, or a bool), ``reasoning`` (a bool,
    an effort, or ``{"effort": ...}`` as ``ChatOpenAI`` takes it), ``reasoning_effort``
    (``"none"`` is off, any other effort on), then Gemini's ``thinking_budget`` (0 is off) and
    ``thinking_level`` (on).
    """
    for source in (settings or {}, model):
        for key, read in _THINKING_FIELDS:
            value = source.get(key) if isinstance(source, Mapping) else _attribute(source, key)
            found = None if value is None else read(value)
            if found is not None:
                return found
    return None


def _thinking(value: Any) -> bool | None:
    return value if isinstance(value, bool) else anthropic_thinking(value)


def _reasoning(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, Mapping):
        return effort_thinking(value.get("effort"))
    return effort_thinking(value)


def _budget(value: Any) -> bool | None:
    return value != 0 if isinstance(value, int) and not isinstance(value, bool) else None


def _level(value: Any) -> bool | None:
    return True if isinstance(value, str) and value.strip() else None


_THINKING_FIELDS: tuple[tuple[str, Callable[[Any], bool | None]], ...] = (
    ("thinking", _thinking),
    ("reasoning", _reasoning),
    ("reasoning_effort", effort_thinking),
    ("thinking_budget", _budget),
    ("thinking_level", _level),
)


def _attribute(obj: object, name: str) -> Any:
    try:
        return getattr(obj, name, None)
    except Exception:  # a property that raises is a fact heal cannot read
        return None


def provider_for_model(model: object) -> ProviderId | None:
    """The provider a LangChain chat model sends to; None when unknown (see the module
    docstring)."""
    for klass in type(model).__mro__:
        name = klass.__name__
        if name in LANGCHAIN_CHAT_MODELS:
            return LANGCHAIN_CHAT_MODELS[name]
        if name in LANGCHAIN_OPENAI_CHAT_MODELS:
            responses = getattr(model, "use_responses_api", None) is True
            base_url = getattr(model, "openai_api_base", None) or getattr(
                model, "azure_endpoint", None
            )
            return openai_endpoint_provider(base_url, "responses" if responses else "chat")
    return None
