"""llverify.triton."""
