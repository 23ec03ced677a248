"""`llverify sweep`: paper claims proved over whole parameter families (executors + verdict cache)."""
