import MockAPNsCore

extension MockAPNsConfiguration {
    /// Reads a JSON configuration file's text over `base` (usually the defaults). Every key is
    /// optional; unknown keys are errors that name the key, its JSON path, line and column.
    ///
    /// ```json
    /// {
    ///   "host": "127.0.0.1",
    ///   "environment": "sandbox",
    ///   "certificateDirectory": "certs-dev",
    ///   "generatedIdCase": "upper",
    ///   "eventLoopThreads": 2,
    ///   "tls": { "certificateChain": "server.pem", "privateKey": "server-key.pem", "clientTrustRoots": "ca.pem" },
    ///   "http2": { "port": 2197, "maxConcurrentStreams": 1000, "idleTimeoutSeconds": 3600 },
    ///   "legacy": { "gatewayPort": 2195, "feedbackPort": 2196, "allowOldTLS": false,
    ///               "parseErrorPolicy": "silentClose", "tokenLength": 32, "variableTokenLength": false,
    ///               "maximumPayloadLength": 2048 }
    /// }
    /// ```
    public static func parse(json text: String, over base: MockAPNsConfiguration = MockAPNsConfiguration()) throws(JSONFileError) -> MockAPNsConfiguration {
        var configuration = base
        var root = try JSONObjectReader(try JSONParser.parse(text))
        if let host = try root.string("host") { configuration.host = host }
        if let environment = try root.oneOf("environment", APNsEnvironment.self) { configuration.environment = environment }
        if let directory = try root.string("certificateDirectory") { configuration.certificateDirectory = directory }
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
            try http2.finish(allowed: ["port", "maxConcurrentStreams", "idleTimeoutSeconds"])
        }
        if var legacy = try root.object("legacy") {
            try configuration.legacy.read(&legacy)
        }
        try root.finish(allowed: ["host", "environment", "certificateDirectory", "generatedIdCase", "eventLoopThreads", "tls", "http2", "legacy"])
        return configuration
    }
}
