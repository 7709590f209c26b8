"""Standard benchmarks (Spider, BIRD) imported as a corpus and recorded answers."""
