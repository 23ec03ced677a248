"""llverify.spec."""
