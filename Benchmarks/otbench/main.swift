import OTMedia
print("otbench: placeholder")
