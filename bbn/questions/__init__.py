"""questions"""
