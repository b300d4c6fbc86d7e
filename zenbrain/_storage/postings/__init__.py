"""Postings held in memory, shared by both back ends' lexical indexes: one scope's postings,
the read side built on them, and the scope tokens that key them."""
