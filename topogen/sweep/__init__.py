"""topogen.sweep"""
