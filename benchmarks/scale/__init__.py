"""Scale and speed as memories pile up: zenbrain beside its peers and floors, in one run."""
