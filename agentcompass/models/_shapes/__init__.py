"""The shapes of the bundled wire formats' JSON bodies (TypedDicts), one module per API; exported through
:mod:`agentcompass.models.wire`."""
