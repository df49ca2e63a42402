"""`python -m payload plan` and `simulate`: the estimators of estimate/ driven from the command line."""
