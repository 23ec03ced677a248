"""llverify.prove."""
