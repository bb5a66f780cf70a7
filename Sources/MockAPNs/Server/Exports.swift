// What `import MockAPNs` brings besides the server: the journal's events and records, which
// `server.journal` hands out, so a test that reads them needs no other import.
@_exported import MockAPNsJournal
