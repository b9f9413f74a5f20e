"""The `analysis` stage: symbols, definitions, roles, shapes from the text, reductions and kinds."""
