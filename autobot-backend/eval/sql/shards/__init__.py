"""A run split across machines (issue 39): which questions shard K of N grades (:mod:`.share`), what a shard's
report stamps (:mod:`.stamp`), and the shards joined into one run (:mod:`.merge`)."""
