// The one JSON scanner, parser and writer (MockAPNsJSON) is part of the core's vocabulary:
// every module that reads or writes JSON imports the core, and finds it there.
@_exported import MockAPNsJSON
