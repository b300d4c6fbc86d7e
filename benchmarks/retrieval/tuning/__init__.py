"""Where zenbrain's recall defaults come from: every candidate value scored on every dataset."""
