"""LoCoMo retrieval: is the turn holding the answer among the first k retrieved?

Every turn of each LoCoMo conversation is indexed (as an episode in its own namespace for
the zenbrain systems); each question of categories 1-4 is asked once, and a question
counts as a hit at k when any of its evidence turns is among the top k. Recall@5 and
recall@10 are reported per category and overall (micro-averaged over questions).

Progress goes to stderr, the markdown tables to stdout; ``--write-docs`` replaces the
"LoCoMo retrieval" section of docs/benchmarks.md. Beside it, ``locomo.stages`` runs the same
task with each of zenbrain's stages switched on and off.

Data: LoCoMo (Maharana et al., ACL 2024, github.com/snap-research/LoCoMo), CC BY-NC 4.0,
read from ``../shared/data/locomo/locomo10.json`` or ``$ZENBRAIN_LOCOMO`` (``--data``).
"""
