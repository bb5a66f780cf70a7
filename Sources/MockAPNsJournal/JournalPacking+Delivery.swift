import MockAPNsCore
import MockAPNsWire
/// The packed layout of a `delivery` event: as frequent as accepted notifications, so packed
/// field by field like them rather than kept as a value.
extension JournalPacking {
    static func pack(_ record: DeliveryRecord, into writer: inout JournalByteWriter) {
        writer.byte(position(of: record.step))
        writer.byte(record.cause.map { position(of: $0) + 1 } ?? 0)
        writer.string(record.deviceToken)
        writer.optionalInt64(record.notificationSequence.map { Int64(bitPattern: $0) })
        writer.signed(record.atMilliseconds)
        writer.optionalInt64(record.untilMilliseconds)
        writer.optionalInt64(record.replacedBy.map { Int64(bitPattern: $0) })
        writer.string(record.rule)
    }

    static func unpackDelivery(from reader: inout JournalByteReader) -> DeliveryRecord? {
        let stepIndex = Int(reader.byte())
        let causeIndex = Int(reader.byte())
        guard stepIndex < DeliveryStep.allCases.count, causeIndex <= DeliveryCause.allCases.count else { return nil }
        return DeliveryRecord(
            step: DeliveryStep.allCases[stepIndex],
            cause: causeIndex == 0 ? nil : DeliveryCause.allCases[causeIndex - 1],
            deviceToken: reader.text(),
            notificationSequence: reader.optionalInt64().map { UInt64(bitPattern: $0) },
            atMilliseconds: reader.signed(), untilMilliseconds: reader.optionalInt64(),
            replacedBy: reader.optionalInt64().map { UInt64(bitPattern: $0) }, rule: reader.string()
        )
    }

    private static func position<Value: CaseIterable & Equatable>(of value: Value) -> UInt8 {
        UInt8(truncatingIfNeeded: Value.allCases.firstIndex(of: value).map { Value.allCases.distance(from: Value.allCases.startIndex, to: $0) } ?? 0)
    }
}
