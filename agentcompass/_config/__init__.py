"""Configuration: Hydra composition (locked), pydantic validation, component building, redaction."""
