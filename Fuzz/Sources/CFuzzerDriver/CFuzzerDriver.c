// The declarations are in include/CFuzzerDriver.h; SwiftPM needs one source file.
