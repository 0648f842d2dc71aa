"""Benchmarks of docchat, beside the product rather than inside it: each prints its figures next
to a baseline measured in the same run. `docchat bench ...` runs them (docchat.cli.bench, the
only product module that names this package); they need the `bench` extra (matplotlib,
LlamaIndex's SQLite chat store), which the product does not."""
