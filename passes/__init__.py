"""IR -> IR passes, one per module."""
