/// A fixed-capacity store of events, oldest first. When full, each new event pushes the
/// oldest out, and `dropped` counts how many went that way.
///
/// A ring over one preallocated array: appending never moves the other events, so keeping
/// 100,000 events costs the same per append as keeping ten.
struct JournalRing: Sendable {
    let capacity: Int
    private var storage: [JournalEvent] = []
    /// Index of the oldest event once the ring is full.
    private var start = 0
    private(set) var dropped: UInt64 = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        storage.reserveCapacity(min(self.capacity, 1 << 20))
    }

    var count: Int { storage.count }

    mutating func append(_ event: JournalEvent) {
        if storage.count < capacity {
            storage.append(event)
        } else {
            storage[start] = event
            start = (start + 1) % capacity
            dropped += 1
        }
    }

    /// Calls `body` on each event from the oldest whose sequence is above `after`, until it
    /// returns `false`. Sequences rise through the ring, so the start is found by bisection.
    func forEach(after: UInt64, _ body: (JournalEvent) -> Bool) {
        let count = storage.count
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if storage[(start + middle) % count].sequence <= after { low = middle + 1 } else { high = middle }
        }
        var offset = low
        while offset < count {
            guard body(storage[(start + offset) % count]) else { return }
            offset += 1
        }
    }

    /// Calls `body` on each event whose sequence is above `after`, newest first, until it
    /// returns `false`.
    func forEachNewestFirst(downTo after: UInt64, _ body: (JournalEvent) -> Bool) {
        let count = storage.count
        var offset = count
        while offset > 0 {
            offset -= 1
            let event = storage[(start + offset) % count]
            guard event.sequence > after, body(event) else { return }
        }
    }

    /// The oldest event kept.
    var first: JournalEvent? { storage.isEmpty ? nil : storage[start] }

    mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        start = 0
        dropped = 0
    }
}
