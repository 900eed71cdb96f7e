"""Retrieval evaluation: question files, IR metrics, runs over a bundle, reports."""
