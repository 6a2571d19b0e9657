"""Model clients: ``client.Model`` (built from ``conf/model/*.yaml``) over the protocols of ``protocols``.

- ``protocols``: the registry; ``protocols/openai_chat`` / ``openai_responses`` / ``anthropic_messages`` /
  ``google_genai``: one
  module per API, on the official SDKs (their own retries off); plug-ins add modules by entry point;
- ``_auto``: the rule behind ``api_protocol: auto`` and the default base URLs;
- ``_retry`` / ``_errors``: backoff with jitter and Retry-After, bounded by count and time; typed errors;
- ``_usage``: token counts and cost; ``_params``: checking and translating ``params``.

Nothing here imports ``openai``, ``anthropic`` or ``google.genai`` until a first call is made.
"""
