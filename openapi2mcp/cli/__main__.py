"""`python -m openapi2mcp.cli`: the console script (as the benchmarks run it)."""

from openapi2mcp.cli.app import main

if __name__ == "__main__":
    main()
