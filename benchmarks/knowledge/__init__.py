"""Knowledge updates: is the latest value recalled first, and what do the rules cost?

Parts, in one run (:mod:`benchmarks.knowledge.updates`; docs/guide/knowledge-updates.md
holds the tables it prints): BEAM's knowledge-update questions, a scenario suite of profile
changes in English and German (:mod:`benchmarks.knowledge.scenarios`), false supersession on
the retrieval datasets, the store cost of the supersession rules, and time named in the
question (zenbrain's parser beside dateparser). ``--parts`` picks some, ``--json FILE``
keeps the raw numbers.
"""
