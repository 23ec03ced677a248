"""llverify.gpu."""
