"""The environment variables that choose a model endpoint, and the error half a choice raises.

Apart from the client (:mod:`services.generation.llm`) so that the service can read which generator the
environment asks for without importing the client, its prompt and its chat policy: a run that asks no model
(recorded answers, the built-in generator) never loads them.
"""

from __future__ import annotations

BASE_URL_ENV = "NL_SQL_LLM_BASE_URL"
MODEL_ENV = "NL_SQL_LLM_MODEL"
API_KEY_ENV = "NL_SQL_LLM_API_KEY"


class GeneratorConfigError(ValueError):
    """The generator's configuration is missing or invalid; the message names the variable to set."""
