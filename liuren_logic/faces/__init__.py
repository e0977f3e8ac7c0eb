"""What a person runs: the ``liuren`` command (console, cli) and the teaching app's server (serve)."""
