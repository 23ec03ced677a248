"""llverify.index."""
