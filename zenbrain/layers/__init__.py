"""The rules of the seven memory layers, one module per layer, plus routing between them.

Pure functions and small in-process structures: no database and no clock ("now" is passed
in), so every rule tests on its own. The database side lives in the coordinator's pipelines
and in :mod:`zenbrain.stages`.

- :mod:`~zenbrain.layers._working`: the slots of the current task (7 ± 2), decaying.
- :mod:`~zenbrain.layers._short_term`: the conversation window, and which chat turns are
  worth remembering long-term.
- :mod:`~zenbrain.layers._episodic`: experiences, their emotional weight, promotion to facts.
- :mod:`~zenbrain.layers._semantic`: facts, their confidence and relations, FSRS review.
- :mod:`~zenbrain.layers._procedural`: how-tos, with a running success rate.
- :mod:`~zenbrain.layers._core`: pinned, labelled blocks that never decay.
- :mod:`~zenbrain.layers._cross_context`: entity names and when two of them are the same thing.
- :mod:`~zenbrain.layers._routing`: which layer ``store()`` picks when none is named.

The layer names themselves are :data:`zenbrain.types.ALL_LAYERS`. Public here: which chat
turns are worth remembering (:func:`worth_remembering`, for the integrations) and a core
block's label as ``set_core_block`` checks it (:func:`validate_label`, for importers that
must refuse a bad row before they write any); the rest is internal.
"""

from zenbrain.layers._core import validate_label
from zenbrain.layers._short_term import worth_remembering

__all__ = ["validate_label", "worth_remembering"]
