"""LoCoMo retrieval: is the turn holding the answer among the first k retrieved?"""
