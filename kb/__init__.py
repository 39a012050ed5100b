"""kb: a trilingual knowledge base, search engine and priority engine for the Magic: The Gathering
Comprehensive Rules."""

__version__ = "0.1.0"
