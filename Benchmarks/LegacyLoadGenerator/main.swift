// Placeholder until the load generator lands: prints its usage.
print("usage: LegacyLoadGenerator --port PORT --connections N --notifications N")
