"""Placement: which calls NumPy computes on the host and where results live (the host
route in front of every public callable, its C fast paths, the placement of arrays NumPy
made); the layer above the array core (``_core``)."""
