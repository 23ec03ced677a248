"""TTGIR front end: read Triton's TritonGPU modules and turn every layout-bearing op into obligations."""
