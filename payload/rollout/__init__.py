"""Rollout side: workers, the SGLang client and launcher, the embedded engine and its HTTP server."""
