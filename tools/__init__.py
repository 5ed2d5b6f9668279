"""Command-line tools: thin main()s over library calls."""
