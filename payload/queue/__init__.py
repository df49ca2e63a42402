"""Task queue and experience buffer: Redis Streams in production, in-memory for the local loop."""
