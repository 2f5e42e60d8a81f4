"""Dataset folders: schemas, the streamed Parquet writer, cards, manifests, publishing."""
