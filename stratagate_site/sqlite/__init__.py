"""Django's SQLite backend with a prompt hand-over of the write lock (see `base`)."""
