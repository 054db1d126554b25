// placeholder so cc has a file
