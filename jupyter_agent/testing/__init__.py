"""Test doubles that are part of the product: the scripted model and the fake provider."""
