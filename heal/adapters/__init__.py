"""Adapters between heal's canonical messages and the formats Python users hold.

Each adapter module ``heal.adapters.<format>`` offers ``load_messages(native)``,
``dump_messages(messages)`` and a one-call ``heal_<format>(native, ...)``. Adapters translate and
never heal: what they cannot represent raises :class:`~heal.errors.InputError` naming the place.
Adapter modules import their SDK (if any) lazily, so ``import heal`` imports none of them.
"""
