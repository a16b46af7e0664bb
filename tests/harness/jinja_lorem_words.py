"""Writes Jinja2's lorem ipsum words (jinja2.constants.LOREM_IPSUM_WORDS), one per line, in their
order, to the file named by the first argument: the reference of the lipsum() tests."""
import sys

from jinja2.constants import LOREM_IPSUM_WORDS

with open(sys.argv[1], "w", encoding="utf-8") as out:
    out.write("".join(word + "\n" for word in LOREM_IPSUM_WORDS.split()))
