"""The persisted cache: entry store, fingerprints of what an entry depends on, maintenance."""
