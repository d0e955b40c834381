"""The README's examples: each file runs as written, and the suite imports them from here."""
