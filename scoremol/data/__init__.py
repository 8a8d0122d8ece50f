"""Reading molecules and targets: input files, named data sets, folds, batches and scalers."""
