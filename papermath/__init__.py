"""papermath: read the mathematics in ML papers the way a careful engineer does, and show the work."""
__version__ = "0.1.0"
