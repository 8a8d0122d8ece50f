"""Trained models: ensembles with a blended tree, safe model files, CatBoost, ScoreRegressor."""
