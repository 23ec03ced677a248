"""llverify.hw."""
