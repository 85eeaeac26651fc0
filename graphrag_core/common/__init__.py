"""Shared basics every stage uses: ids, names, numbers, dates, atomic writes, errors.

This package imports no stage (a test says so), so any stage may import it.
"""
