"""A generated package's hooks.py: the API it uses (`api`: Hooks, Call, Request, Result...) and
how the runtime runs what it registers (`runner`)."""
