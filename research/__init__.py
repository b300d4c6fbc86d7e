"""Research code kept in the repository, not shipped in the zenbrain wheel (see README.md)."""
