"""llverify.codegen."""
