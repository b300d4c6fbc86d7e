"""The SQLite back end: connection pragmas, the lexical index, vectors and their pre-filter."""
