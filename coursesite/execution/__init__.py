"""Running lessons, each in its own supervised process or on a cluster, into a record."""
