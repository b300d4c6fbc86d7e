"""Pure per-layer rules: routing, working-memory slots, core labels, procedures, review
scheduling, cross-context entities. No database and no clock: "now" is passed in."""
