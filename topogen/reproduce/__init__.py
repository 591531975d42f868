"""Paper reproductions: each module registers one or more ``topogen reproduce NAME``."""
