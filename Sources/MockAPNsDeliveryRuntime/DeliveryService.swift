import Logging
import MockAPNsCore
import MockAPNsJournal
import NIOCore
import Synchronization
import MockAPNsDelivery

/// Runs the delivery model beside the server: reads accepted notifications and device changes
/// from the journal (through `DeliveryFeed`, in journal order, once the server subscribes it), applies Apple's rules on the
/// server clock, records each step as a `delivery` event (all but a delivery on arrival, which
/// readers derive: `derivedThrough`), and hands what is delivered to the forwarders. It works
/// on its own task, off the event loops; a request's only cost is the feed's hand-off.
package actor DeliveryService {
    /// After each batch the reader rests this long, so that under load it takes events in
    /// batches rather than waking for each one.
    package static let batchInterval = Duration.milliseconds(5)
    /// How often the clock is looked at while something waits for a deadline: a clock moved
    /// through the Swift API (not the control API, which says so at once) is noticed within this.
    package static let clockPollInterval: Int64 = 100

    private var model: DeliveryModel
    /// Off (`delivery.model: false`), the service takes nothing from the journal and refuses
    /// every question.
    package nonisolated let runsModel: Bool
    /// The model's reader of the journal, subscribed with the server's other readers
    /// (`ServerObservation.subscribeReaders`) when the model runs.
    package nonisolated let feed = DeliveryFeed()
    private let journal: Journal
    private let clock: ServerClock
    private let settings: DeliveryServiceSettings
    /// The forwarders' queues, made at start on the server's event loops.
    private var forwarding: [ForwardingQueue] = []
    private let logger: Logger
    private var reading: Task<Void, Never>?
    /// Server resets asked for, and those carried out: a reset is asked for synchronously and
    /// carried out before the model takes anything newer.
    private let resetsAsked = Atomic<UInt64>(0)
    private var resetsDone: UInt64 = 0
    /// The sequence of the newest notification the model has taken in, stored once its steps
    /// are recorded: an accepted notification up to it with no recorded step was delivered
    /// on arrival. One atomic word, so the dashboard's stream reads it without the actor.
    private let takenThrough = Atomic<UInt64>(0)
    /// The notifications the feed left out (it overflowed): nothing is derived for them.
    private var leftOut: [ClosedRange<UInt64>] = []
    /// The most ranges kept; beyond it the oldest two are merged (the gap between them is then
    /// left out too: its notifications stay `accepted` rather than be claimed delivered).
    private static let leftOutLimit = 64

    package init(settings: DeliveryServiceSettings, journal: Journal, clock: ServerClock, logger: Logger) {
        self.model = DeliveryModel(options: settings.options)
        self.runsModel = settings.runsModel
        self.settings = settings
        self.journal = journal
        self.clock = clock
        self.logger = logger
    }

    // MARK: Running

    /// Starts reading the feed and the forwarders (whose connections run on `group`).
    package func start(group: any EventLoopGroup) {
        guard runsModel else { return }
        let limits = ForwardingQueue.Limits(
            queue: settings.forwardQueueLimit, timeout: .milliseconds(Int64((settings.forwardTimeoutSeconds * 1000).rounded())),
            slow: .milliseconds(Int64((settings.forwardSlowSeconds * 1000).rounded()))
        )
        var forwarders: [any DeliveryForwarder] = []
        if let simulator = settings.simulatorCommand {
            forwarders.append(SimulatorForwarder(command: simulator))
        }
        if let url = settings.webhookURL, let address = WebhookAddress(url) {
            forwarders.append(WebhookForwarder(url: url, address: address, group: group))
        }
        forwarding = forwarders.map { ForwardingQueue(forwarder: $0, limits: limits, journal: journal, logger: logger) }
        for queue in forwarding { queue.start() }
        reading = Task { [weak self] in await self?.run() }
    }

    /// Stops reading (after taking in what is waiting) and stops the forwarders.
    package func stop() async {
        let task = reading
        reading = nil
        task?.cancel()
        await task?.value
        catchUp()
        for queue in forwarding { await queue.stop() }
    }

    private func run() async {
        while !Task.isCancelled {
            catchUp()
            try? await Task.sleep(for: Self.batchInterval)
            await feed.bell.wait(timeout: nextLook())
        }
    }

    /// How long to wait for the next input: until the next deadline on a clock that follows
    /// real time, at most `clockPollInterval` (the clock may be moved); without deadlines,
    /// until an input arrives.
    private func nextLook() -> Duration? {
        guard let deadline = model.nextDeadline else { return nil }
        let wait = min(max(deadline - clock.millisecondsSince1970, 1), Self.clockPollInterval)
        return .milliseconds(wait)
    }

    // MARK: Reading the journal

    /// Takes in every input the feed holds, then passes the deadlines due by the clock's
    /// reading now. Readers call it before they answer, so what they see includes every
    /// notification already in the journal.
    package func catchUp() {
        let asked = resetsAsked.load(ordering: .acquiring)
        if asked != resetsDone {
            resetsDone = asked
            _ = model.removeAll()
        }
        let (batches, overflow, leftOutNow) = feed.drain()
        if overflow > 0 {
            let message = "The delivery model fell \(DeliveryFeed.limit) inputs behind the journal: \(overflow) accepted notification(s) "
                + "or device change(s) were left out of it (their answers were not affected)."
            logger.warning("\(message)", metadata: ["diagnosis": "delivery.feed-overflow"])
            journal.record(.diagnosis(code: .deliveryFeedOverflow, message: message, figures: [JournalFigure("leftOut", Int64(overflow))]))
        }
        if let leftOutNow { remember(leftOut: leftOutNow) }
        var changes: [DeliveryModel.Change] = []
        var newest: UInt64?
        for batch in batches {
            for event in batch {
                guard let input = DeliveryFeed.input(event) else { continue }
                take(input, newest: &newest, changes: &changes)
            }
        }
        model.advance(to: clock.millisecondsSince1970, into: &changes)
        // One lock for the batch. A delivery on arrival is not recorded: readers derive it.
        var recorded: [JournalEventKind] = []
        for change in changes where !change.isOnArrival { recorded.append(.delivery(change.record)) }
        if !recorded.isEmpty { journal.record(recorded) }
        if let newest { takenThrough.store(newest, ordering: .releasing) }
        guard !forwarding.isEmpty else { return }
        for change in changes {
            if let delivered = DeliveredNotification(change) {
                for queue in forwarding { queue.offer(delivered) }
            }
        }
    }

    /// One input into the model; `newest` is the sequence of the last notification taken.
    private func take(_ input: DeliveryFeed.Input, newest: inout UInt64?, changes: inout [DeliveryModel.Change]) {
        switch input {
        case .notification(let record, let sequence, let receivedAt):
            newest = sequence
            // The usual case under load, decided before the model's value of the
            // notification is made: delivered on arrival, which nothing records.
            if forwarding.isEmpty, model.deliversOnArrival(priority: record.priority, pushType: record.pushType) { return }
            guard let notification = DeliveryNotification(record, sequence: sequence, receivedAtMilliseconds: receivedAt) else { return }
            model.receive(notification, into: &changes)
        case .device(let token, let online, let time):
            changes += model.setOnline(token, online, at: time)
        }
    }

    private func remember(leftOut range: ClosedRange<UInt64>) {
        leftOut.append(range)
        if leftOut.count > Self.leftOutLimit {
            leftOut[1] = leftOut[0].lowerBound...leftOut[1].upperBound
            leftOut.removeFirst()
        }
    }

    /// The sequence through which every accepted notification has been taken in by the model
    /// and its steps recorded: one with no recorded step up to here was delivered on arrival.
    /// `nil` when the model is off.
    package nonisolated var derivedThrough: UInt64? {
        runsModel ? takenThrough.load(ordering: .acquiring) : nil
    }

    // MARK: What the control API and the embedding API ask

    /// Records that `token` went online or offline now; the model applies it in journal
    /// order, after every notification recorded before it. Returns the device as it then is.
    package func setDevice(_ token: String, online: Bool) async throws(DeliveryModelOff) -> DeviceDeliveryState {
        guard runsModel else { throw DeliveryModelOff() }
        let sequence = journal.record(.delivery(.device(token, online: online, at: clock.millisecondsSince1970)))
        await feedReaches(sequence)
        catchUp()
        return model.state(of: token)
    }

    /// Waits (at most a second) until the feed holds the device change at `sequence`. The journal
    /// hands an event to its readers on the thread that recorded it, unless another thread is
    /// handing over events then; this waits out the second case.
    private func feedReaches(_ sequence: UInt64) async {
        var waited = 0
        while feed.lastDeviceChange < sequence, waited < 1000 {
            try? await Task.sleep(for: .milliseconds(1))
            waited += 1
        }
    }

    /// Every device that is offline or has notifications waiting.
    package func devices() throws(DeliveryModelOff) -> [DeviceDeliveryState] {
        guard runsModel else { throw DeliveryModelOff() }
        catchUp()
        return model.devicesHeld
    }

    /// One device (online and empty when never told otherwise).
    package func device(_ token: String) throws(DeliveryModelOff) -> DeviceDeliveryState {
        guard runsModel else { throw DeliveryModelOff() }
        catchUp()
        return model.state(of: token)
    }

    /// The timelines of the notifications `id` names (see `DeliveryTimeline.find`).
    package func timelines(for id: String) throws(DeliveryModelOff) -> [DeliveryTimeline] {
        guard runsModel else { throw DeliveryModelOff() }
        catchUp()
        let events = journal.events(matching: JournalEventFilter(kinds: ["notification", "delivery"]))
        return DeliveryTimeline.find(id, in: events, derivedThrough: takenThrough.load(ordering: .acquiring), leftOut: leftOut)
    }

    /// Forgets every device (all online again, nothing stored) and what waits in the feed:
    /// what a server reset does here. Done before the model next takes anything in.
    package nonisolated func reset() {
        _ = feed.drain()
        resetsAsked.add(1, ordering: .releasing)
        feed.bell.ring()
    }

    package var options: DeliveryOptions { model.options }
}

/// What the delivery service is set up with: the model's options and the forwarders
/// (`MockAPNsConfiguration.DeliverySettings` says it in the configuration's words).
package struct DeliveryServiceSettings: Sendable {
    /// Off, the service takes nothing from the journal and refuses every question.
    package var runsModel: Bool
    package var options: DeliveryOptions
    /// The command that hands a delivered notification to a simulator, when one is set up.
    package var simulatorCommand: SimulatorPushCommand?
    /// Where delivered notifications are posted, when set.
    package var webhookURL: String?
    package var forwardTimeoutSeconds: Double
    package var forwardSlowSeconds: Double
    package var forwardQueueLimit: Int

    package init(
        runsModel: Bool, options: DeliveryOptions, simulatorCommand: SimulatorPushCommand?, webhookURL: String?,
        forwardTimeoutSeconds: Double, forwardSlowSeconds: Double, forwardQueueLimit: Int
    ) {
        self.runsModel = runsModel
        self.options = options
        self.simulatorCommand = simulatorCommand
        self.webhookURL = webhookURL
        self.forwardTimeoutSeconds = forwardTimeoutSeconds
        self.forwardSlowSeconds = forwardSlowSeconds
        self.forwardQueueLimit = forwardQueueLimit
    }
}
