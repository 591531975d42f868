"""topogen.experiments"""
