"""Text: documents decoded, parsed into blocks, cut into sections and chunks (section_chunks)."""
