"""Loads the plugin the way `hermes gateway` does: Hermes's plugin manager
finds the `hermes_agent.plugins` entry point and, with `aria` in
`plugins.enabled`, calls its `register(ctx)`."""

import os
import tempfile
from pathlib import Path

_HOME = Path(tempfile.mkdtemp(prefix="aria-hermes-test-"))
(_HOME / "config.yaml").write_text("plugins:\n  enabled: [aria]\n")
os.environ["HERMES_HOME"] = str(_HOME)

from hermes_cli.plugins import discover_plugins, get_plugin_manager  # noqa: E402

discover_plugins(force=True)
_loaded = get_plugin_manager()._plugins.get("aria")
if _loaded is None or not _loaded.enabled:
    raise RuntimeError(f"Hermes did not load the aria plugin: {_loaded and _loaded.error}")
