"""Knowledge updates: is the latest value recalled first, and what do the rules cost?"""
