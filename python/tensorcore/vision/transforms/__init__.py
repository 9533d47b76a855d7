"""tensorcore.vision.transforms"""
