// The server's configuration: the value (`MockAPNsConfiguration`) and its settings, the JSON
// configuration file, environments, timeouts, the control API's and the registry's settings,
// and the development credentials a server without a configured folder uses.

import MockAPNsCore
import MockAPNsJournal
import MockAPNsHTTP2
import MockAPNsUpstream

extension MockAPNsConfiguration {
    /// A configuration from the JSON a configuration file holds (`mockapns serve --config`):
    /// every setting the file can give, including those without a typed property here (TLS
    /// files, timeouts, validation, verdict thresholds, the access log). Each mistake is
    /// reported with its JSON path and what was expected.
    public init(jsonText: String) throws {
        self = try Self.parse(json: jsonText)
    }

    /// Reads a JSON configuration file's text over `base` (usually the defaults). Every key is
    /// optional; unknown keys are errors that name the key, its JSON path, line and column.
    ///
    /// ```json
    /// {
    ///   "host": "127.0.0.1",
    ///   "environment": "sandbox",          // or "production", or "both" (then "productionPorts" below)
    ///   "productionPorts": { "http2": 2297, "gateway": 2295, "feedback": 2296, "channelManagement": 2299 },
    ///   "certificateDirectory": "certs-dev",
    ///   "keyDirectory": "certs-dev",
    ///   "clock": "2026-01-01T00:00:00Z",
    ///   "generatedIdCase": "upper",
    ///   "eventLoopThreads": 2,
    ///   "tls": { "certificateChain": "server.pem", "privateKey": "server-key.pem", "clientTrustRoots": "ca.pem" },
    ///   "http2": { "port": 2197, "maxConcurrentStreams": 1000, "idleTimeoutSeconds": 3600 },
    ///   "validation": { "payloadLimit": 4096, "nonObjectPayload": "accept", ... },
    ///   "providerTokens": { "futureToleranceSeconds": 60, "otherTeamReason": "InvalidProviderToken", ... },
    ///   "legacy": { "gatewayPort": 2195, "feedbackPort": 2196, "allowOldTLS": false,
    ///               "parseErrorPolicy": "silentClose", "tokenLength": 32, "variableTokenLength": false,
    ///               "maximumPayloadLength": 2048 },
    ///   "journal": { "capacity": 100000, "capacityBytes": 134217728, "file": "journal.jsonl", "fileWhenBehind": "wait", "frames": true,
    ///                "providerTokens": "withoutSignature" },
    ///   "control": { "port": 2198, "host": "127.0.0.1", "allowNonLoopback": false, "allowedHosts": ["mockapns.local"],
    ///                "allowedOrigins": ["http://localhost:3000"], "token": "..." },
    ///   "registry": { "rateLimit": { "pushes": 10, "perSeconds": 60 } },
    ///   "timeouts": { "tlsHandshakeSeconds": 10, "http2PrefaceSeconds": 10, "controlRequestHeaderSeconds": 10,
    ///                 "legacyIdleSeconds": 300, "legacyFrameSeconds": 10, "webPushIdleSeconds": 60, "webPushHeaderSeconds": 10,
    ///                 "webPushBodySeconds": 10 },
    ///   "verdicts": { "enabled": true, "minimumRetryDelayMilliseconds": 100, "reconnectStormConnections": 5, ... }
    ///   "upstream": { "url": "sandbox", "trustRoots": "upstream-ca.pem", "certificateChain": "push.pem", "privateKey": "push-key.pem",
    ///                 "channelManagementUrl": "https://...", "connections": 2, "connectTimeoutSeconds": 5, "requestTimeoutSeconds": 10 }
    ///   "delivery": { "batchDelaySeconds": 0, "maximumStorageSeconds": 2592000, "webhookUrl": "http://127.0.0.1:8080/push",
    ///                 "simulator": { "device": "booted", "devices": { "<token>": "<udid>" } }, "forwardTimeoutSeconds": 5 }
    /// }
    /// ```
    package static func parse(json text: String, over base: MockAPNsConfiguration = MockAPNsConfiguration()) throws(JSONFileError) -> MockAPNsConfiguration {
        var configuration = base
        var root = try JSONObjectReader(try JSONParser.parse(text))
        if let host = try root.string("host") { configuration.host = host }
        if let environment = try root.oneOf("environment", ServerEnvironment.self) { configuration.environment = environment }
        if var ports = try root.object("productionPorts") {
            try configuration.productionPorts.read(&ports)
        }
        if let directory = try root.string("certificateDirectory") { configuration.certificateDirectory = directory }
        if let required = try root.bool("requireAuthentication") { configuration.requiresAuthentication = required }
        if let keys = try root.string("keyDirectory") { configuration.keyDirectory = keys }
        if let clock = root.node("clock") {
            configuration.clockStart = try ClockSetting.parse(clock, path: root.path(of: "clock"))
        }
        if let letterCase = try root.oneOf("generatedIdCase", LetterCase.self) { configuration.generatedIDCase = letterCase }
        if let threads = try root.integer("eventLoopThreads", in: 1...256) { configuration.eventLoopThreads = Int(threads) }
        if var tls = try root.object("tls") {
            configuration.tls.certificateChain = try tls.string("certificateChain") ?? configuration.tls.certificateChain
            configuration.tls.privateKey = try tls.string("privateKey") ?? configuration.tls.privateKey
            configuration.tls.clientTrustRoots = try tls.string("clientTrustRoots") ?? configuration.tls.clientTrustRoots
            try tls.finish(allowed: ["certificateChain", "privateKey", "clientTrustRoots"])
        }
        if var http2 = try root.object("http2") {
            if let port = try http2.integer("port", in: 0...65535) { configuration.http2Port = Int(port) }
            if let streams = try http2.integer("maxConcurrentStreams", in: 1...Int64(UInt32.max)) {
                configuration.http2.maxConcurrentStreams = Int(streams)
            }
            if let idle = try http2.double("idleTimeoutSeconds", in: 0.001...(86_400 * 365)) {
                configuration.http2.idleTimeoutSeconds = idle
            }
            if let policy = try http2.oneOf("clientsWithoutALPN", ClientsWithoutALPN.self) {
                configuration.http2.acceptsClientsWithoutALPN = policy == .accept
            }
            if let overflow = try http2.oneOf("headerListOverflow", HeaderListOverflowResponse.self) {
                configuration.http2.headerListOverflow = overflow
            }
            try http2.finish(allowed: ["port", "maxConcurrentStreams", "idleTimeoutSeconds", "clientsWithoutALPN", "headerListOverflow"])
        }
        if var validation = try root.object("validation") {
            try configuration.validation.read(&validation)
        }
        if var providerTokens = try root.object("providerTokens") {
            try configuration.providerTokens.read(&providerTokens)
        }
        if var legacy = try root.object("legacy") {
            try configuration.legacy.read(&legacy)
        }
        if var journal = try root.object("journal") {
            try configuration.journal.read(&journal)
        }
        if var control = try root.object("control") {
            try configuration.control.read(&control)
        }
        if var webPush = try root.object("webPush") {
            try configuration.webPush.read(&webPush)
        }
        if var upstream = try root.object("upstream") {
            try configuration.upstreamSettings.read(&upstream)
        }
        if var broadcast = try root.object("broadcast") {
            try configuration.broadcast.read(&broadcast, environment: configuration.environment.primary)
        }
        if var registry = try root.object("registry") {
            try configuration.registry.read(&registry)
        }
        if var timeouts = try root.object("timeouts") {
            try configuration.timeouts.read(&timeouts)
        }
        if var delivery = try root.object("delivery") {
            try configuration.delivery.read(&delivery)
        }
        if var verdicts = try root.object("verdicts") {
            if let enabled = try verdicts.bool("enabled") { configuration.judgesProviders = enabled }
            try configuration.verdicts.read(&verdicts, alsoAllowed: ["enabled"])
        }
        try root.finish(allowed: ["broadcast", "webPush", "upstream", "host", "environment", "certificateDirectory", "keyDirectory", "clock", "requireAuthentication", "generatedIdCase", "eventLoopThreads", "tls", "http2", "validation", "providerTokens", "legacy", "journal", "control", "timeouts", "registry", "productionPorts", "verdicts", "delivery"])
        return configuration
    }
}

/// `http2.clientsWithoutALPN`: serve HTTP/2 to a TLS client that offers no ALPN, or refuse it.
enum ClientsWithoutALPN: String, CaseIterable {
    case accept
    case refuse
}

