"""llverify.report."""
