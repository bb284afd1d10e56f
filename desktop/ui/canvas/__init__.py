"""The node-graph canvas: scene, items, view and minimap."""
