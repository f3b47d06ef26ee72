"""Hermes Agent plugin: the `aria` platform, linking Hermes's gateway to the
aria-web gateway, with tool and sub-agent hooks for full tool data.

Installed with ``pip install ./hermes-plugin`` into Hermes's environment
and enabled with ``plugins.enabled: [aria]`` (see docs/hermes-link.md).
"""

from __future__ import annotations

import os

from .hooks import PLATFORM, Hooks

HOOKS = Hooks()


def _adapter(config):
    from .adapter import AriaAdapter

    return AriaAdapter(config, HOOKS)


def register(ctx) -> None:
    """Hermes's plugin entry point."""
    # Without a home channel Hermes answers a thread's first message with a
    # "/sethome" notice. aria threads are not delivery targets (cron and
    # cross-platform messages have no turn to land in), so none is named.
    os.environ.setdefault("ARIA_HOME_CHANNEL", "none")
    ctx.register_platform(
        name=PLATFORM,
        label="aria",
        adapter_factory=_adapter,
        check_fn=lambda: True,
        emoji="🌐",
        allow_update_command=False,
        platform_hint=(
            "You are talking to the user through aria, a web chat that renders "
            "Markdown, code blocks and math."
        ),
    )
    ctx.register_hook("pre_llm_call", HOOKS.pre_llm_call)
    ctx.register_hook("post_api_request", HOOKS.post_api_request)
    ctx.register_hook("pre_tool_call", HOOKS.pre_tool_call)
    ctx.register_hook("post_tool_call", HOOKS.post_tool_call)
    ctx.register_hook("subagent_start", HOOKS.subagent_start)
