"""topogen.sim"""
