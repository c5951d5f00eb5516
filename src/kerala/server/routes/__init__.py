"""The server's routers: one module per area (games, tools, live, ui)."""
