import MockAPNsCore
/// The times at which devices have something due (an expiry, a batch release), earliest
/// first: a binary min-heap, so that a notification costs the model O(log n) whatever the
/// number of offline devices. An entry may outlive what it was for (the notification was
/// delivered or replaced first); finding nothing due at its time is harmless, and the owner
/// rebuilds the queue when such entries pile up.
struct DeadlineQueue: Sendable {
    private struct Entry: Sendable {
        var time: Int64
        var token: String
    }

    private var heap: [Entry] = []

    /// The earliest time held.
    var earliest: Int64? { heap.first?.time }

    /// Entries held, stale ones included.
    var count: Int { heap.count }

    mutating func insert(_ time: Int64, token: String) {
        heap.append(Entry(time: time, token: token))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].time < heap[parent].time else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes every entry due by `now` and returns their tokens.
    mutating func removeDue(by now: Int64) -> Set<String> {
        var tokens: Set<String> = []
        while let first = heap.first, first.time <= now {
            tokens.insert(first.token)
            removeFirst()
        }
        return tokens
    }

    /// Holds exactly `entries` from now on.
    mutating func replace(with entries: [(time: Int64, token: String)]) {
        heap = []
        heap.reserveCapacity(entries.count)
        for entry in entries { insert(entry.time, token: entry.token) }
    }

    mutating func removeAll() {
        heap = []
    }

    private mutating func removeFirst() {
        guard heap.count > 1 else {
            heap = []
            return
        }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].time < heap[smallest].time { smallest = left }
            if right < heap.count, heap[right].time < heap[smallest].time { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
