"""One module per published dataset: its name, version, schema, conditions and card text."""
