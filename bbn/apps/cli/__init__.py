"""apps/cli"""
