import OTMedia
print("otkit: placeholder")
