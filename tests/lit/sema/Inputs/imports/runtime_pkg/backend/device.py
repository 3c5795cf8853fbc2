vendor = "nvidia"
