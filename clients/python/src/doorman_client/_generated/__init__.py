"""Generated from the OpenAPI document Doorman serves by scripts/generate_types.py: never edit."""
