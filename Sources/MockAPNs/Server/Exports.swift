// What `import MockAPNs` brings besides the server: the vocabulary its API speaks (Apple's
// reasons and records, the journal's events, scenarios, the verdict report, the delivery
// log), so a test that embeds the server needs no other import.
@_exported import MockAPNsControl
@_exported import MockAPNsCore
@_exported import MockAPNsDelivery
@_exported import MockAPNsJournal
@_exported import MockAPNsScenario
@_exported import MockAPNsVerdicts
@_exported import MockAPNsWebPush
