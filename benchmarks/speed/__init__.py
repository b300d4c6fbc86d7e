"""Speed of single operations: cold starts, writes, encryption, recall before and after."""
