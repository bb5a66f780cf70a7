import MockAPNsCore
/// A scripted behaviour for the mock: the device registry to start from, connection
/// settings, and an ordered list of rules that may override what the decision core answers,
/// delay the answer, or inject a fault.
///
/// Scenarios are JSON files (see `scenarios/schema.json` and docs/guide/scenarios.md). Decode one with
/// ``Scenario/init(jsonText:)``; a server runs the one in its configuration.
public struct Scenario: Sendable, Equatable {
    /// A short name, for logs and the journal.
    public var name: String
    /// What the scenario is for, in plain words.
    public var description: String?
    /// Fixes every random choice (probabilities, delays, garbage bytes). `nil`: the engine
    /// picks one and reports it, so a surprising run can be replayed.
    public var seed: UInt64?
    /// The named state rules start in (WireMock's "Started" by default).
    package var initialState: String
    /// Tokens to mark unregistered, expired or bound to topics, and feedback to queue.
    package var registry: ScenarioRegistryState
    /// Settings for every new connection.
    package var connection: ScenarioConnectionSettings
    /// Rules in the order they are tried: the first that matches a request decides.
    package var rules: [ScenarioRule]

    /// The state every scenario starts in unless it names another.
    package static let defaultInitialState = "Started"

    package init(
        name: String,
        description: String? = nil,
        seed: UInt64? = nil,
        initialState: String = Scenario.defaultInitialState,
        registry: ScenarioRegistryState = ScenarioRegistryState(),
        connection: ScenarioConnectionSettings = ScenarioConnectionSettings(),
        rules: [ScenarioRule] = []
    ) {
        self.name = name
        self.description = description
        self.seed = seed
        self.initialState = initialState
        self.registry = registry
        self.connection = connection
        self.rules = rules
    }

    /// A scenario with no rules: the decision core alone answers.
    package static let empty = Scenario(name: "none")
}

/// Device-registry entries a scenario sets up when it is loaded. Timestamps are
/// milliseconds since 1970, as in a 410 response.
package struct ScenarioRegistryState: Sendable, Equatable {
    /// Tokens that answer `410 Unregistered` (status 8 on the legacy gateway), for one topic
    /// or every topic. Each also queues a feedback tuple, as Apple's feedback service lists
    /// uninstalled apps.
    package var unregistered: [TokenSince]
    /// Tokens that answer `410 ExpiredToken`.
    package var expired: [TokenSince]
    /// Tokens valid only for these topics (others get `DeviceTokenNotForTopic`).
    package var topics: [TokenTopics]
    /// Feedback tuples to queue. A feedback tuple says the app was removed, so each token is
    /// also unregistered from that time.
    package var feedback: [TokenSince]
    /// Tokens that belong to one environment: a push reaching the other gets `BadDeviceToken`.
    package var environments: [TokenEnvironment]

    package init(
        unregistered: [TokenSince] = [], expired: [TokenSince] = [], topics: [TokenTopics] = [], feedback: [TokenSince] = [],
        environments: [TokenEnvironment] = []
    ) {
        self.unregistered = unregistered
        self.expired = expired
        self.topics = topics
        self.feedback = feedback
        self.environments = environments
    }

    /// A token and the environment it belongs to.
    package struct TokenEnvironment: Sendable, Equatable {
        package var token: String
        package var environment: APNsEnvironment

        package init(token: String, environment: APNsEnvironment) {
            self.token = token
            self.environment = environment
        }
    }

    /// A token and the time something became true of it.
    package struct TokenSince: Sendable, Equatable {
        package var token: String
        /// Milliseconds since 1970.
        package var since: Int64
        /// Limits the entry to one topic; `nil` means every topic.
        package var topic: String?

        package init(token: String, since: Int64, topic: String? = nil) {
            self.token = token
            self.since = since
            self.topic = topic
        }
    }

    /// A token and the only topics it may receive pushes for.
    package struct TokenTopics: Sendable, Equatable {
        package var token: String
        package var topics: [String]

        package init(token: String, topics: [String]) {
            self.token = token
            self.topics = topics
        }
    }

    /// Applies the entries to `registry`, on top of what it already holds.
    package func apply(to registry: DeviceRegistry) {
        // Environments and topic bindings first: a feedback tuple carries the token's
        // environment, and an unregistered token queues one per topic.
        for binding in environments {
            registry.bind(binding.token, to: binding.environment)
        }
        for binding in topics {
            registry.bind(binding.token, toTopics: Set(binding.topics))
        }
        for entry in unregistered {
            registry.markUnregistered(entry.token, since: entry.since, topic: entry.topic)
        }
        for entry in feedback {
            registry.queueFeedback(entry.token, since: entry.since, topic: entry.topic)
        }
        for entry in expired {
            registry.markExpired(entry.token, since: entry.since)
        }
    }
}

/// Connection settings a scenario imposes on new connections; `nil` keeps the server's.
package struct ScenarioConnectionSettings: Sendable, Equatable {
    /// HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS announced to new connections.
    package var maxConcurrentStreams: Int?
    /// HTTP/2: GOAWAY `{"reason":"IdleTimeout"}` after this many idle seconds.
    package var idleTimeoutSeconds: Double?
    /// HTTP/2: a graceful GOAWAY `{"reason":"Shutdown"}` once a connection has carried this
    /// many requests; legacy gateway: status 10 after this many notifications.
    package var goAwayAfterRequests: Int?

    package init(maxConcurrentStreams: Int? = nil, idleTimeoutSeconds: Double? = nil, goAwayAfterRequests: Int? = nil) {
        self.maxConcurrentStreams = maxConcurrentStreams
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.goAwayAfterRequests = goAwayAfterRequests
    }
}
