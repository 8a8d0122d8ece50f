"""Molecules to features: parsing and standardization, atom/bond graphs, RDKit descriptors, caching."""
