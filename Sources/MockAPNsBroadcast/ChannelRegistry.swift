import Synchronization
import MockAPNsCore

/// The server's broadcast channels, beside the device registry: shared by the channel
/// management listener (which creates, reads and deletes them), broadcast sends on the
/// provider API (which look them up), the control API and the Swift API.
///
/// Channels are kept per environment and bundle id, in creation order.
package final class ChannelRegistry: Sendable {
    private struct Key: Hashable {
        var environment: APNsEnvironment
        var bundleID: String
    }

    private struct State {
        var channels: [Key: [BroadcastChannel]] = [:]
    }

    private let state = Mutex(State())
    /// Told of each channel stored or deleted (a fleet's replica logs it for the others).
    private let observer = Mutex<(@Sendable (ChannelRegistryChange) -> Void)?>(nil)

    /// An empty registry.
    package init() {}

    /// Tells `observer` of every channel stored (made or replaced) or deleted from now on,
    /// after the change and outside the registry's lock; a reset is not told.
    package func observe(_ observer: @escaping @Sendable (ChannelRegistryChange) -> Void) {
        self.observer.withLock { $0 = observer }
    }

    private func tell(_ change: ChannelRegistryChange) {
        observer.withLock { $0 }?(change)
    }

    /// Why `create` refused.
    package enum CreateRefusal: Error, Sendable, Equatable {
        /// The bundle id already has `limit` channels in this environment.
        case limitReached(limit: Int)
    }

    /// Makes a channel with a fresh random id, unless the bundle id already has `limit`
    /// channels in `environment`.
    package func create(
        bundleID: String, environment: APNsEnvironment, storagePolicy: MessageStoragePolicy,
        limit: Int, idByteCount: Int = 16, at now: Int64
    ) -> Result<BroadcastChannel, CreateRefusal> {
        let made: Result<BroadcastChannel, CreateRefusal> = state.withLock { state in
            let key = Key(environment: environment, bundleID: bundleID)
            let existing = state.channels[key, default: []]
            guard existing.count < limit else { return .failure(.limitReached(limit: limit)) }
            var id = ChannelID.generate(byteCount: idByteCount)
            while existing.contains(where: { $0.id == id }) { id = ChannelID.generate(byteCount: idByteCount) }
            let channel = BroadcastChannel(
                id: id, bundleID: bundleID, environment: environment, storagePolicy: storagePolicy,
                createdAtMilliseconds: now
            )
            state.channels[key, default: []].append(channel)
            return .success(channel)
        }
        if case .success(let channel) = made { tell(.stored(channel)) }
        return made
    }

    /// Adds (or replaces, by id) a channel as given: configuration seeds and the control API.
    /// `announcing: false` keeps it from the observer (a change another replica made).
    package func insert(_ channel: BroadcastChannel, announcing: Bool = true) {
        defer { if announcing { tell(.stored(channel)) } }
        state.withLock { state in
            let key = Key(environment: channel.environment, bundleID: channel.bundleID)
            var list = state.channels[key, default: []]
            if let index = list.firstIndex(where: { $0.id == channel.id }) {
                list[index] = channel
            } else {
                list.append(channel)
            }
            state.channels[key] = list
        }
    }

    /// The channel `id` of `bundleID` in `environment`, if it exists.
    package func channel(id: String, bundleID: String, environment: APNsEnvironment) -> BroadcastChannel? {
        state.withLock { state in
            state.channels[Key(environment: environment, bundleID: bundleID)]?.first { $0.id == id }
        }
    }

    /// The channels of `bundleID` in `environment`, oldest first.
    package func channels(bundleID: String, environment: APNsEnvironment) -> [BroadcastChannel] {
        state.withLock { $0.channels[Key(environment: environment, bundleID: bundleID)] ?? [] }
    }

    /// Every channel, grouped by environment and bundle id, oldest first within a group.
    package var all: [BroadcastChannel] {
        state.withLock { state in
            state.channels.keys
                .sorted { ($0.environment.rawValue, $0.bundleID) < ($1.environment.rawValue, $1.bundleID) }
                .flatMap { state.channels[$0] ?? [] }
        }
    }

    /// Deletes the channel; `false` when it did not exist.
    @discardableResult
    package func delete(id: String, bundleID: String, environment: APNsEnvironment) -> Bool {
        let deleted = state.withLock { state in
            let key = Key(environment: environment, bundleID: bundleID)
            guard let index = state.channels[key]?.firstIndex(where: { $0.id == id }) else { return false }
            state.channels[key]?.remove(at: index)
            if state.channels[key]?.isEmpty == true { state.channels[key] = nil }
            return true
        }
        if deleted { tell(.deleted(id: id)) }
        return deleted
    }

    /// Deletes the channel with this id wherever it is; `false` when none has it.
    @discardableResult
    package func delete(id: String, announcing: Bool = true) -> Bool {
        let deleted = state.withLock { state in
            for key in state.channels.keys {
                if let index = state.channels[key]?.firstIndex(where: { $0.id == id }) {
                    state.channels[key]?.remove(at: index)
                    if state.channels[key]?.isEmpty == true { state.channels[key] = nil }
                    return true
                }
            }
            return false
        }
        if deleted, announcing { tell(.deleted(id: id)) }
        return deleted
    }

    /// Forgets every channel (a server reset); returns how many there were.
    @discardableResult
    package func reset() -> Int {
        state.withLock { state in
            defer { state.channels = [:] }
            return state.channels.values.reduce(0) { $0 + $1.count }
        }
    }
}

/// A change to a channel registry, as its observer is told.
package enum ChannelRegistryChange: Sendable, Equatable {
    /// A channel made, or one replaced by id.
    case stored(BroadcastChannel)
    /// The channel with this id deleted.
    case deleted(id: String)
}
