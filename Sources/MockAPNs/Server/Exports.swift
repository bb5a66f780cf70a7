// What `import MockAPNs` brings besides the server: the vocabulary its API speaks (Apple's
// reasons and records, the journal's events, scenarios, the verdict report, the delivery
// log), declaration by declaration, so a test that embeds the server needs no other import
// and sees nothing else of the modules behind it. scripts/public-api.py counts these.

// Apple's vocabulary and the server's shared state.
@_exported import enum MockAPNsCore.APNsEnvironment
@_exported import enum MockAPNsCore.Reason
@_exported import enum MockAPNsCore.Transport
@_exported import class MockAPNsCore.DeviceRegistry
@_exported import class MockAPNsCore.ServerClock
@_exported import struct MockAPNsCore.RateWindow
@_exported import struct MockAPNsCore.UpstreamRelay

// The journal and its records.
@_exported import class MockAPNsJournal.Journal
@_exported import struct MockAPNsJournal.JournalEvent
@_exported import struct MockAPNsJournal.JournalEventFilter
@_exported import struct MockAPNsJournal.NotificationFilter
@_exported import struct MockAPNsJournal.NotificationNearMiss
@_exported import struct MockAPNsJournal.NotificationWaitTimeout
@_exported import struct MockAPNsJournal.NotificationRecord
@_exported import struct MockAPNsJournal.WebPushDetails
@_exported import struct MockAPNsJournal.WebPushNotificationContent
@_exported import enum MockAPNsJournal.ProviderIdentity
@_exported import struct MockAPNsJournal.ProviderVerdict
@_exported import enum MockAPNsJournal.VerdictCheck
@_exported import enum MockAPNsJournal.VerdictRule

// Scenarios.
@_exported import struct MockAPNsScenario.Scenario
@_exported import struct MockAPNsScenario.ScenarioDecodingError
@_exported import struct MockAPNsScenario.ScenarioRule

// The verdict report.
@_exported import struct MockAPNsVerdicts.VerdictReport
@_exported import struct MockAPNsVerdicts.ProviderReport
@_exported import struct MockAPNsVerdicts.NotificationTally
@_exported import struct MockAPNsVerdicts.RetryDelays
@_exported import struct MockAPNsVerdicts.RuleOutcome

// The delivery model, web push and the control API's answers.
@_exported import struct MockAPNsDelivery.DeliveryTimeline
@_exported import struct MockAPNsDelivery.DeviceDeliveryState
@_exported import struct MockAPNsWebPush.WebPushSubscriptionInfo
@_exported import struct MockAPNsControl.ServerReset

// The `logger:` parameter's type, so a caller passes its own without importing Logging.
@_exported import struct Logging.Logger
