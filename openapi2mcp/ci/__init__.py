"""For CI: compare a spec with a generated package (--check), diff two, the tool changelog."""
