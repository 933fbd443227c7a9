"""CLI commands, one module each; `register(app)` adds a module's commands to the app."""
