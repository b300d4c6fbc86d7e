"""Recall on public conversational-memory datasets and on mixed stores, and its tuning."""
