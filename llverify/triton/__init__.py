"""Triton text interop: ``#ttg.*`` attributes, TTGIR aliases, tensor/memdesc types, ``llverify show``."""

from llverify.triton.format import format_attr, format_type, format_value
from llverify.triton.parse import AttrParseError, dtype_bits, layout_from_attr, parse_aliases, parse_attr, parse_value
from llverify.triton.types import parse_type, parse_type_spec

__all__ = ["AttrParseError", "parse_attr", "parse_aliases", "parse_type", "parse_type_spec", "parse_value",
           "layout_from_attr", "format_attr", "format_type", "format_value", "dtype_bits"]
