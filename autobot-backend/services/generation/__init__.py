"""SQL generators: the interface, the model-backed one, recorded answers, and dialect transpiling."""
