"""Heal what agent frameworks and SDK clients send, just before they send it.

Each module here plugs heal into one framework, and imports that framework: import the module
you need explicitly (``import heal`` imports none of them)::

    heal.integrations.pydantic_ai     HealHistory capability, heal_history() history processor
    heal.integrations.langchain       HealMiddleware for langchain.agents.create_agent
    heal.integrations.openai_agents   heal_input_filter() for RunConfig.call_model_input_filter
    heal.integrations.clients         heal_openai(client), heal_anthropic(client)
    heal.integrations.litellm         completion(), acompletion(), HealCallback (the proxy)

They share one contract:

* the outgoing request is healed, not the stored conversation: what the framework keeps (run
  history, graph state, session) is left as it was, except where a module says otherwise;
* the provider rules follow the model that serves the request (``provider="auto"``), unless
  ``provider=`` names one (or ``None``: the shared rules only);
* each repair goes to ``on_repair`` when given, else it is logged at INFO on the ``heal`` logger;
* ``policy=``, ``rules=`` and ``strict=`` mean what they mean for :func:`heal.heal_messages`
  (``strict=True`` raises :class:`~heal.errors.HealingError` instead of sending a history that
  needed repairs).
"""
